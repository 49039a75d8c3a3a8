/**
 * Addresses that reach this machine, its local network or a cloud's metadata service rather
 * than a public server: where a request sent on a server's word (a registry's token realm) could
 * reach what only the job should (blind SSRF).
 */
export type AddressKind =
  'loopback' | 'unspecified' | 'link-local' | 'private' | 'shared' | 'metadata'

/** How messages name each kind. */
export const ADDRESS_KINDS: Record<AddressKind, string> = {
  loopback: 'a loopback address (this machine)',
  unspecified: 'an unspecified address (0.0.0.0/8 or ::, this machine)',
  'link-local':
    'a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer)',
  private:
    'a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7 or fec0::/10)',
  shared: 'a shared address (100.64.0.0/10, carrier-grade NAT and some cloud metadata services)',
  metadata: 'a cloud metadata service name',
}

/** The names cloud providers give their instance metadata services. */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
])

/**
 * The kind of a URL's hostname (as `new URL()` gives it: IPv4 in dotted decimal whatever form it
 * was written in, IPv6 in brackets), or undefined for a public address or any other name. Only
 * what the name says: a name that resolves to a private address is not seen here.
 */
export function addressKind(hostname: string): AddressKind | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback'
  if (METADATA_NAMES.has(name)) return 'metadata'
  const ipv4 = ipv4Octets(name)
  if (ipv4) return ipv4Kind(ipv4)
  const ipv6 =
    name.startsWith('[') && name.endsWith(']') ? ipv6Groups(name.slice(1, -1)) : undefined
  return ipv6 ? ipv6Kind(ipv6) : undefined
}

function ipv4Octets(name: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name)
  const octets = match?.slice(1).map(Number)
  return octets?.every((octet) => octet <= 255) ? octets : undefined
}

function ipv4Kind([a = 0, b = 0]: number[]): AddressKind | undefined {
  if (a === 127) return 'loopback'
  if (a === 0) return 'unspecified'
  if (a === 169 && b === 254) return 'link-local'
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private'
  if (a === 100 && b >= 64 && b <= 127) return 'shared'
  return undefined
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail read). */
function ipv6Groups(text: string): number[] | undefined {
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text)
  let hex = text
  if (dotted) {
    const octets = ipv4Octets(dotted[2] ?? '')
    if (!octets) return undefined
    const [a = 0, b = 0, c = 0, d = 0] = octets
    hex = `${dotted[1] ?? ''}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = hex.split('::')
  if (halves.length > 2) return undefined
  const parse = (part: string | undefined): number[] | undefined => {
    if (!part) return []
    const groups = part.split(':')
    return groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))
      ? groups.map((group) => parseInt(group, 16))
      : undefined
  }
  const head = parse(halves[0])
  const tail = parse(halves[1])
  if (!head || !tail) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  return [...head, ...Array<number>(missing).fill(0), ...tail]
}

function ipv6Kind(groups: number[]): AddressKind | undefined {
  const [first = 0] = groups
  const zeroesBefore = (count: number): boolean => groups.slice(0, count).every((g) => g === 0)
  if (zeroesBefore(7)) {
    if (groups[7] === 1) return 'loopback'
    if (groups[7] === 0) return 'unspecified'
  }
  // IPv4-mapped (::ffff:a.b.c.d) and the NAT64 prefix (64:ff9b::a.b.c.d) reach the IPv4 address.
  const mapped = zeroesBefore(5) && groups[5] === 0xffff
  const nat64 = first === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)
  if (mapped || nat64) {
    const [high = 0, low = 0] = groups.slice(6)
    return ipv4Kind([high >> 8, high & 0xff, low >> 8, low & 0xff])
  }
  if ((first & 0xffc0) === 0xfe80) return 'link-local'
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfec0) return 'private'
  return undefined
}
