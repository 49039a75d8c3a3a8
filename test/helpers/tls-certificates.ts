import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TlsFiles {
  /** The private certificate authority's PEM: what NODE_EXTRA_CA_CERTS points at. */
  caFile: string
  key: string
  cert: string
  remove(): Promise<void>
}

/**
 * A throwaway certificate authority and a server certificate it signs for `names` (host names
 * and IP addresses), made with openssl: the setup of a webhook behind a private CA.
 */
export async function makeTlsFiles(names: readonly string[]): Promise<TlsFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'olympe-tls-'))
  const file = (name: string): string => join(dir, name)
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  }
  const san = names
    .map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`))
    .join(',')
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Olympe test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  )
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${names[0] ?? 'localhost'}`,
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  )
  await writeFile(file('ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`)
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
    '-out',
    'server.pem',
  )
  return {
    caFile: file('ca.pem'),
    key: await readFile(file('server.key'), 'utf8'),
    cert: await readFile(file('server.pem'), 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  }
}
