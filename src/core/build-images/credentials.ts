/**
 * `docker login` stores base64(`user:password`) in the Docker config, and registries echo it in
 * errors: a form of the password that masking the password alone does not catch.
 */
export function registryAuthSecret(username: string, password: string): string[] {
  if (username === '' || password === '') return []
  return [Buffer.from(`${username}:${password}`).toString('base64')]
}
