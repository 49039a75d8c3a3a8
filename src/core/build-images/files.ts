import { readdir, readFile, stat } from 'node:fs/promises'

/** The reads the action makes in the project: pre-flight checks and version files. */
export interface ProjectFiles {
  /** Undefined when the file does not exist or cannot be read. */
  readText(path: string): Promise<string | undefined>
  /** 'file', 'folder', or undefined when nothing is there. */
  kind(path: string): Promise<'file' | 'folder' | 'other' | undefined>
  /** Names in a folder; undefined when it is not a readable folder. */
  list(path: string): Promise<string[] | undefined>
}

export const nodeProjectFiles: ProjectFiles = {
  readText: (path) => readFile(path, 'utf8').catch(() => undefined),
  kind: async (path) => {
    const found = await stat(path).catch(() => undefined)
    if (!found) return undefined
    if (found.isFile()) return 'file'
    return found.isDirectory() ? 'folder' : 'other'
  },
  list: (path) => readdir(path).catch(() => undefined),
}
