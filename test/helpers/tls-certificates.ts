import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startOwning } from './cleanup.js'
import { run } from './run-process.js'

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
export function makeTlsFiles(names: readonly string[]): Promise<TlsFiles> {
  return startOwning(async (owned) => {
    const dir = await owned.tempDir('olympe-tls-')
    const file = (name: string): string => join(dir, name)
    await signedCertificate(dir, names)
    return {
      caFile: file('ca.pem'),
      key: await readFile(file('server.key'), 'utf8'),
      cert: await readFile(file('server.pem'), 'utf8'),
      remove: () => owned.run(),
    }
  })
}

/** ca.pem, and server.key with its server.pem that ca.pem signs for `names`, in `dir`. */
async function signedCertificate(dir: string, names: readonly string[]): Promise<void> {
  const openssl = (...args: string[]): Promise<unknown> => run('openssl', args, { cwd: dir })
  const san = names
    .map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`))
    .join(',')
  await openssl(
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
  await openssl(
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
  await writeFile(join(dir, 'ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`)
  await openssl(
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
}
