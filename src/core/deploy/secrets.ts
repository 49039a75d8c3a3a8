/**
 * The whole webhook URL is secret, and so are the parts that can leak alone: credentials in its
 * user part, and a path or query that carries a token (hooks.example/deploy/<token>).
 */
export function webhookUrlSecrets(raw: string): string[] {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return []
  }
  const parts = [url.href, url.username, url.password, decodeURIComponent(url.password)]
  const pathAndQuery = `${url.pathname}${url.search}`
  if (pathAndQuery.length >= 8) parts.push(pathAndQuery, url.pathname.replace(/^\//, ''))
  return parts.filter((part) => part.length >= 4)
}
