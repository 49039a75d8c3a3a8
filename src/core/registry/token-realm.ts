import { ADDRESS_KINDS, addressKind } from '../shared/address-kind.js'
import { isLoopbackHost } from '../shared/loopback.js'

/**
 * Why the token service a registry names in its challenge must not be asked, or undefined when
 * it may. The registry's word alone decides where the request goes, so it must not be able to
 * point it where only the job can reach (blind SSRF), nor hand a token over plain http:
 * - the realm is https, or plain http on the registry's own loopback address (a local test
 *   registry): a token from another host never comes, nor goes back, over plain http;
 * - a realm on a loopback, link-local, private, shared or unspecified address, or a cloud
 *   metadata name, is asked only when the registry itself is on that address (or, for loopback,
 *   when the registry is on loopback too).
 */
export function realmRefusal(realm: URL, registry: URL): string | undefined {
  const sameHost = realm.hostname === registry.hostname
  const localRegistry = isLoopbackHost(registry.hostname)
  if (realm.protocol !== 'https:' && !(sameHost && localRegistry))
    return `the registry's token service is a plain http:// address (${realm.host}): a token service is asked over https, or over http only on the address of a registry on this machine, so it was not asked`
  const kind = addressKind(realm.hostname)
  if (kind === undefined || sameHost || (kind === 'loopback' && localRegistry)) return undefined
  return `the registry's token service is at ${ADDRESS_KINDS[kind]} (${realm.host}), which is asked only when the registry itself is on that address, so it was not asked`
}
