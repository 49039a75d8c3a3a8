import { isAbsolute, relative, sep } from 'node:path'
import { quote } from './errors.js'
import type { Files } from './ports.js'

/**
 * A file the user names (`payload-file`, a public key) must be in the workspace once every
 * symbolic link on its way is resolved: a repository file that anyone who may push can change (a
 * committed link) must not make the step read the runner's files. The file's real path, to read
 * it by; or the problem, worded once for every such input (each adds what to do).
 */
export async function inWorkspace(
  fullPath: string,
  workspace: string,
  files: Pick<Files, 'realpath'>,
): Promise<{ real: string } | { problem: string }> {
  const [real, root] = await Promise.all([
    files.realpath(fullPath).catch(() => fullPath),
    files.realpath(workspace).catch(() => workspace),
  ])
  const way = relative(root, real)
  if (way !== '..' && !way.startsWith(`..${sep}`) && !isAbsolute(way)) return { real }
  return { problem: `it resolves to ${quote(real)}, outside the workspace ${quote(root)}` }
}
