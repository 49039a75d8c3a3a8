/**
 * Every docker command line the action runs, as argv arrays (never a shell string), and the
 * parsers of what those commands print. Pure, so that each is table-tested.
 */

/** One `docker build`: the context is the project root, SOURCES_PATH is relative to it. */
export interface BuildCommand {
  dockerfile: string
  context: string
  sourcesPath: string
  tags: readonly string[]
  buildArgs: ReadonlyArray<readonly [string, string]>
  labels: ReadonlyArray<readonly [string, string]>
  platform?: string
  cacheFrom: readonly string[]
}

export function versionArgv(): string[] {
  return ['version', '--format', '{{json .}}']
}

/** The password goes to stdin: argv is visible in process lists and in error messages. */
export function loginArgv(server: string, username: string): string[] {
  return ['login', server, '--username', username, '--password-stdin']
}

export function buildArgv(command: BuildCommand): string[] {
  const argv = ['build', '--file', command.dockerfile]
  argv.push('--build-arg', `SOURCES_PATH=${command.sourcesPath}`)
  for (const [name, value] of command.buildArgs) argv.push('--build-arg', `${name}=${value}`)
  for (const [name, value] of command.labels) argv.push('--label', `${name}=${value}`)
  for (const tag of command.tags) argv.push('--tag', tag)
  if (command.platform) argv.push('--platform', command.platform)
  for (const source of command.cacheFrom) argv.push('--cache-from', source)
  argv.push(command.context)
  return argv
}

export function pushArgv(reference: string): string[] {
  return ['push', reference]
}

export function imageSizeArgv(reference: string): string[] {
  return ['image', 'inspect', '--format', '{{.Size}}', reference]
}

/**
 * `docker push` ends with `<tag>: digest: sha256:<64 hex> size: <bytes>`: the manifest digest,
 * the one the registry serves and `name@sha256:…` references pin.
 */
export function parsePushDigest(output: string, reference: string): string | undefined {
  const tag = reference.slice(reference.lastIndexOf(':') + 1)
  for (const line of output.split(/\r?\n/).reverse()) {
    const match = /^(\S+): digest: (sha256:[0-9a-f]{64}) size: \d+\s*$/.exec(line.trim())
    if (match && match[1] === tag) return match[2]
  }
  return undefined
}

export interface DockerVersions {
  client?: string
  /** Undefined when the daemon did not answer. */
  server?: string
}

/** `docker version --format '{{json .}}'` prints the client part even when no daemon answers. */
export function parseVersions(output: string): DockerVersions {
  let document: unknown
  try {
    document = JSON.parse(output.trim())
  } catch {
    return {}
  }
  return {
    client: stringAt(document, 'Client', 'Version'),
    server: stringAt(document, 'Server', 'Version'),
  }
}

function stringAt(document: unknown, ...path: string[]): string | undefined {
  let value = document
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** `28.2.2`, `24.0.7-ce`, `20.10.24+dfsg1` → their major version. */
export function majorVersion(version: string): number | undefined {
  const match = /^v?(\d+)\./.exec(version.trim())
  return match ? Number(match[1]) : undefined
}
