import { isAbsolute, normalize } from 'node:path'
import type { Problem } from '../shared/problem.js'

/**
 * A path the inputs name inside the project (`working-directory`, the build context), where the
 * builder can read it: relative, normalised, without a trailing '/'; or why it is not one.
 * `what` names it in the problem ("the backend build output folder").
 */
export function projectPath(raw: string, what: string): string | Problem {
  if (raw === '') return { problem: `is empty; expected the ${what}` }
  if (isAbsolute(raw))
    return {
      problem: `is absolute; expected the ${what} relative to 'working-directory', the build context`,
    }
  const normal = normalize(raw)
  if (normal === '..' || normal.startsWith('../'))
    return {
      problem: `is outside 'working-directory', the build context, where docker cannot read it; expected the ${what} inside the project`,
    }
  return normal.replace(/\/+$/, '')
}
