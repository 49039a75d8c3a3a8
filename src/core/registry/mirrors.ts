import type { SecretParts } from '../definition.js'
import { unique } from '../shared/collections.js'
import { parseImageName } from '../shared/image-ref.js'
import { refine } from '../shared/inputs.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { credentialForms } from '../shared/url-credentials.js'
import { parseRegistry } from './credentials.js'
import { DOCKER_HUB, registryImage, registryName, type RegistryImage } from './reference.js'

/**
 * `registry-mirrors`: the registries whose images this run reads from another registry, such as
 * Docker Hub's from the instance's own (`docker.io=registry.internal/dockerhub`). Honoured
 * wherever an image is resolved: the reuse look-up and the image check ask the mirror, Buildah
 * gets it in its registries configuration, and Docker as a named context per base image.
 */

/** One `registry=mirror` line. */
export interface RegistryMirror {
  /** The registry it serves, as registryName names it: `docker.io`, `ghcr.io`, `host:5000`. */
  registry: string
  /** Where its images are: `host[:port][/path]`, an image's path (and tag) after it. */
  location: string
  /** The mirror's `host[:port]`: whose login it is read with. */
  host: string
}

export type RegistryMirrors = readonly RegistryMirror[]

export const MIRRORS_EXAMPLE = "'docker.io=registry.internal/dockerhub'"
const EXPECTED = `expected one 'registry=mirror' per line, such as ${MIRRORS_EXAMPLE} (a path after the mirror's host allowed)`

/** The `registry-mirrors` input of both actions; '' means none. */
export const registryMirrors = refine<RegistryMirror[]>((raw) => parseMirrors(raw))

/**
 * Each line `registry=mirror`. A problem names a line by its number, never by its whole text,
 * and quotes neither side when the line gives credentials (an '@' on either side): they hold a
 * password, which may hold the `=` the line is cut at.
 */
export function parseMirrors(raw: string): RegistryMirror[] | Problem {
  const mirrors: RegistryMirror[] = []
  for (const [index, text] of raw.split(/\r?\n/).entries()) {
    const line = text.trim()
    const number = index + 1
    if (line === '') continue
    const eq = line.indexOf('=')
    if (eq < 0) return { problem: `line ${number} is not registry=mirror; ${EXPECTED}` }
    const served = line.slice(0, eq).trim()
    const location = line.slice(eq + 1).trim()
    const problem =
      credentialsProblem(served, location) ?? servedProblem(served) ?? locationProblem(location)
    if (problem) return { problem: `line ${number} ${problem}; ${EXPECTED}` }
    const registry = registryName(served)
    const target = parseRegistry(location)
    if (isProblem(target)) return { problem: `line ${number} ${target.problem}` }
    if (mirrors.some((mirror) => mirror.registry === registry))
      return {
        problem: `line ${number} names the registry '${registry}' again; expected each registry once`,
      }
    if (registryName(target.prefix) === registry && target.prefix === target.host)
      return { problem: `line ${number} gives '${registry}' itself as its mirror; ${EXPECTED}` }
    mirrors.push({ registry, location: target.prefix, host: target.host })
  }
  return mirrors
}

/**
 * Credentials on either side, told before anything that quotes a side: a `user:password@`
 * before a host is a secret, and a password may hold the `=` the line is cut at.
 */
function credentialsProblem(served: string, location: string): string | undefined {
  if (location.includes('@'))
    return "gives the mirror with credentials ('user:password@host'), which would show in logs and in the builder's configuration: remove them (a mirror on the host of 'registry' is read with 'registry-username' and 'registry-password', any other anonymously or with the runner's own login)"
  if (served.includes('@'))
    return "gives the registry it serves with credentials ('user:password@host'), which would show in logs: remove them (that registry is only named here: its images are read from the mirror)"
  return undefined
}

function servedProblem(served: string): string | undefined {
  if (served === '') return 'names no registry before the `=`'
  if (!isRegistryHost(served))
    return `names '${served}' as the registry it serves, which is not a registry host (such as 'docker.io', 'ghcr.io' or 'registry.example.com:5000', without a path)`
  return undefined
}

/** A registry's `host[:port]`, without a path: what the side before the `=` names. */
function isRegistryHost(text: string): boolean {
  const target = parseRegistry(text)
  return !isProblem(target) && target.prefix === target.host
}

function locationProblem(location: string): string | undefined {
  if (location === '') return 'names no mirror after the `=`'
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
    return `gives the mirror '${location}' with a scheme; give its host and path alone (https is used, plain http only on this machine's loopback)`
  return undefined
}

/**
 * The `user:password@` (or a token alone, `token@`) a line gives before a host, read by the rule
 * of every address's credentials (url-credentials.ts): after any scheme, up to the line's last
 * '@', wherever it stands. It starts after the `=` when the '@' follows it and a registry host
 * comes before it (`docker.io=user:password@mirror`); else at the line's start, the `=` inside it
 * (`user:pass=word@mirror`) or after it (`user:password@docker.io=mirror`). Undefined when the
 * line gives none.
 */
function lineCredentials(
  line: string,
): { before: string; userInfo: string; after: string } | undefined {
  const at = line.lastIndexOf('@')
  if (at < 0) return undefined
  const eq = line.indexOf('=')
  const from = eq >= 0 && eq < at && isRegistryHost(line.slice(0, eq).trim()) ? eq + 1 : 0
  const start = from + (/^\s*(?:[a-z][a-z0-9+.-]*:\/\/)?/i.exec(line.slice(from))?.[0].length ?? 0)
  return { before: line.slice(0, start), userInfo: line.slice(start, at), after: line.slice(at) }
}

/**
 * The forms of the credentials the lines give their mirrors with, which the parser refuses but
 * the log must not show before it does: the password (or the token), as written and decoded, the
 * whole user part and its Basic form, as for any address (credentialForms).
 */
export function mirrorSecrets(raw: string): string[] {
  return unique(
    raw.split(/\r?\n/).flatMap((line) => credentialForms(lineCredentials(line)?.userInfo ?? '')),
  )
}

/**
 * What of `registry-mirrors` is secret: nothing the parser accepts (it refuses credentials), but
 * the `user:password@` a line may give, masked before any line is printed, and shown as `***@`.
 */
export const mirrorCredentials: SecretParts<RegistryMirror[]> = {
  said: "credentials in a mirror ('user:password@host')",
  parts: (_mirrors, raw) => mirrorSecrets(raw),
  unparsed: (raw) => mirrorSecrets(raw),
  shown: (raw) =>
    raw
      .split('\n')
      .map((line) => {
        const found = lineCredentials(line)
        return found ? `${found.before}***${found.after}` : line
      })
      .join('\n'),
}

/**
 * Where a mirror serves `reference`: its location, then the image's path in its registry
 * (Docker Hub's official images under `library/`, as a Docker Hub mirror holds them) with its
 * tag and digest; a reference with neither is `:latest`, as Docker reads it. Undefined when no
 * mirror serves its registry, or when it is no image reference.
 */
export function mirroredReference(reference: string, mirrors: RegistryMirrors): string | undefined {
  if (mirrors.length === 0) return undefined
  const parsed = parseImageName(reference)
  if (!parsed) return undefined
  const registry = registryName(parsed.domain ?? DOCKER_HUB)
  const mirror = mirrors.find((candidate) => candidate.registry === registry)
  if (!mirror) return undefined
  const path =
    registry === DOCKER_HUB && !parsed.path.includes('/') ? `library/${parsed.path}` : parsed.path
  const tag = parsed.tag ? `:${parsed.tag}` : ''
  const digest = parsed.digest ? `@${parsed.digest}` : ''
  return `${mirror.location}/${path}${tag}${digest}`
}

/**
 * The registry API of an image as this run reads it: at its mirror when one serves its
 * registry (`mirrorOf` names the registry it stands for), else where its name says. The
 * reference stays the one given.
 */
export function resolvedImage(
  reference: string,
  mirrors: RegistryMirrors,
): (RegistryImage & { mirrorOf?: string }) | Problem {
  const mirrored = mirroredReference(reference, mirrors)
  const own = registryImage(reference)
  if (!mirrored) return own
  const target = registryImage(mirrored)
  if (isProblem(target)) return target
  const served = isProblem(own) ? undefined : own.registry
  return { ...target, reference, ...(served ? { mirrorOf: served } : {}) }
}

/** The registry as a message names it: its mirror says whose images it serves. */
export function registryShown(image: { registry: string; mirrorOf?: string }): string {
  return image.mirrorOf
    ? `'${image.registry}' (the mirror of '${image.mirrorOf}' in 'registry-mirrors')`
    : `'${image.registry}'`
}
