import type { SecretParts } from '../definition.js'

/**
 * PEM text as keys come in it (RFC 7468): what an input holds before any key is read, and what
 * of it must be masked. No cryptography here, so that reading an input costs nothing.
 */

/** One PEM block of a text: its label, its base64 body in one piece, and the body's lines. */
export interface PemBlock {
  label: string
  body: string
  lines: string[]
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)\r?\n?-----END \1-----/g

/** Every complete PEM block of a text, in order. */
export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(PEM_BLOCK)].map((match) => {
    const inside = match[2] ?? ''
    return {
      label: match[1] ?? '',
      body: inside.replace(/\s+/g, ''),
      lines: inside
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    }
  })
}

/** Whether an input's value is PEM text rather than a path. */
export function looksLikePem(text: string): boolean {
  return text.trimStart().startsWith('-----BEGIN ')
}

/** A base64 text as a PEM file holds it: lines of 64 characters. */
export function pemLines(base64: string): string[] {
  return base64.match(/.{1,64}/g) ?? []
}

export const ENCRYPTED_LABELS = ['ENCRYPTED SIGSTORE PRIVATE KEY', 'ENCRYPTED COSIGN PRIVATE KEY']
export const PLAIN_LABELS = ['EC PRIVATE KEY', 'PRIVATE KEY']

export const SIGNING_KEY_EXPECTED =
  "the private key that `cosign generate-key-pair` writes (cosign.key, '-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----' …), or an unencrypted ECDSA P-256 key in PEM ('EC PRIVATE KEY' or 'PRIVATE KEY')"

/** What the value of `signing-key` holds, before any password: one PEM block of a known kind. */
export function signingKeyShapeProblem(text: string): string | undefined {
  const blocks = pemBlocks(text)
  const [block] = blocks
  if (!block) return `holds no complete PEM block; expected ${SIGNING_KEY_EXPECTED}`
  if (blocks.length > 1)
    return `holds ${blocks.length} PEM blocks; expected one private key, ${SIGNING_KEY_EXPECTED}`
  if (block.label === 'PUBLIC KEY')
    return "is a public key (cosign.pub); give the private key (cosign.key) here, and its public key to deploy's 'verify-signatures'"
  if (![...ENCRYPTED_LABELS, ...PLAIN_LABELS].includes(block.label))
    return `is a '${block.label}' PEM block; expected ${SIGNING_KEY_EXPECTED}`
  return undefined
}

/**
 * What of the raw `signing-key` can leak besides the whole value: each line of its PEM body as
 * written (a log shows one line at a time), and the body in one piece. The BEGIN and END lines are
 * no secret. Masked before any log, with the password (a secret input).
 */
export function signingKeySecrets(text: string): string[] {
  return pemBlocks(text).flatMap((block) => [block.body, ...block.lines])
}

/** The bodies of the private keys in a text that should hold none (a public key's input). */
export function privateKeySecrets(text: string): string[] {
  return signingKeySecrets(
    pemBlocks(text)
      .filter((block) => block.label.includes('PRIVATE KEY'))
      .map(
        (block) =>
          `-----BEGIN ${block.label}-----\n${block.lines.join('\n')}\n-----END ${block.label}-----`,
      )
      .join('\n'),
  )
}

/** `signing-key`'s secret: the whole value, and each line of its PEM body (see signingKeySecrets). */
export const signingKeyParts: SecretParts<string | undefined> = {
  whole: true,
  said: 'a private key',
  parts: (key) => signingKeySecrets(key ?? ''),
  unparsed: (raw) => signingKeySecrets(raw),
  shown: () => '***',
}

/** The secret of an input that holds a public key: a private key pasted there by mistake. */
export const pastedPrivateKey: SecretParts = {
  said: 'a private key',
  parts: (_key, raw) => privateKeySecrets(raw),
  unparsed: (raw) => privateKeySecrets(raw),
  shown: (raw) => raw,
}
