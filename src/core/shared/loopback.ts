const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1'])

/** Plain http is acceptable only to this machine: the loopback names and 127.0.0.0/8. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}
