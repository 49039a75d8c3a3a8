import { createHash } from 'node:crypto'
import type { Files, TreeEntry } from '../../src/core/shared/ports.js'

/**
 * The Files port over an in-memory tree (absolute path -> text); folders are implied by the
 * paths of their files. Only reads are supported: a core test that writes uses a temp folder.
 */
export function memoryFiles(tree: Readonly<Record<string, string>>): Files {
  const children = (path: string): string[] => [
    ...new Set(
      Object.keys(tree)
        .filter((file) => file.startsWith(`${path}/`))
        .map((file) => file.slice(path.length + 1).split('/')[0] ?? ''),
    ),
  ]
  const missing = (path: string): Error =>
    Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), {
      code: 'ENOENT',
    })
  const readOnly = (): Promise<never> => Promise.reject(new Error('memoryFiles is read-only'))
  return {
    stat: (path) => {
      const text = tree[path]
      if (text !== undefined) return Promise.resolve({ kind: 'file', size: text.length })
      return Promise.resolve(children(path).length > 0 ? { kind: 'directory', size: 0 } : undefined)
    },
    // No links in a memory tree: every path is its own real path.
    linkTarget: () => Promise.resolve(undefined),
    realpath: (path) => Promise.resolve(path),
    readText: (path) => {
      const text = tree[path]
      return text === undefined ? Promise.reject(missing(path)) : Promise.resolve(text)
    },
    list: (path) => Promise.resolve(children(path)),
    listFilesDeep: (path) =>
      Promise.resolve(
        Object.keys(tree)
          .filter((file) => file.startsWith(`${path}/`))
          .sort(),
      ),
    tree: (path) => {
      const file = (name: string, text: string): TreeEntry => ({
        path: name,
        kind: 'file',
        mode: 0o644,
        uid: 0,
        gid: 0,
        size: text.length,
      })
      const text = tree[path]
      if (text !== undefined) return Promise.resolve([file('', text)])
      const below = Object.keys(tree)
        .filter((name) => name.startsWith(`${path}/`))
        .sort()
      if (below.length === 0) return Promise.resolve(undefined)
      const folders = new Set<string>([''])
      const entries: TreeEntry[] = []
      for (const name of below) {
        const relative = name.slice(path.length + 1)
        const parts = relative.split('/')
        for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'))
        entries.push(file(relative, tree[name] ?? ''))
      }
      for (const folder of folders)
        entries.push({ path: folder, kind: 'directory', mode: 0o755, uid: 0, gid: 0, size: 0 })
      return Promise.resolve(
        entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      )
    },
    hashFile: (path) => {
      const text = tree[path]
      return text === undefined
        ? Promise.reject(missing(path))
        : Promise.resolve(createHash('sha256').update(text).digest('hex'))
    },
    writeText: readOnly,
    makeTempDir: readOnly,
    makeDir: readOnly,
    replaceDir: readOnly,
    remove: readOnly,
  }
}

/**
 * memoryFiles over `tree` that records each read of a file `watched` picks (`text <path>` for its
 * text, `hash <path>` for its hash), and refuses those reads, and looking at it, once `closed` is
 * set: how a test shows that the run reads nothing the check already read.
 */
export function countingFiles(
  tree: Readonly<Record<string, string>>,
  watched: (path: string) => boolean = () => true,
): Files & { reads: string[]; closed: boolean } {
  const files = memoryFiles(tree)
  const refused = (path: string): boolean => counted.closed && watched(path)
  const read = <T>(how: string, path: string, go: (path: string) => Promise<T>): Promise<T> => {
    if (watched(path)) counted.reads.push(`${how} ${path}`)
    return refused(path) ? Promise.reject(new Error(`${path} read again`)) : go(path)
  }
  const counted = {
    ...files,
    reads: [] as string[],
    closed: false,
    readText: (path: string) => read('text', path, (at) => files.readText(at)),
    hashFile: (path: string) => read('hash', path, (at) => files.hashFile(at)),
    stat: (path: string) =>
      refused(path) ? Promise.reject(new Error(`${path} looked at again`)) : files.stat(path),
  }
  return counted
}

/** A clock frozen at one instant, whose sleeps return at once and are recorded. */
export function frozenClock(iso: string): {
  now: () => Date
  sleep: (ms: number) => Promise<void>
  sleeps: number[]
} {
  const sleeps: number[] = []
  return {
    now: () => new Date(iso),
    sleep: (ms) => {
      sleeps.push(ms)
      return Promise.resolve()
    },
    sleeps,
  }
}

/**
 * memoryFiles that also writes: each file written is added to the tree (read back as any other)
 * and kept in `written`, by path. For the core code that writes its reports (the SBOMs).
 */
export function writableMemoryFiles(
  tree: Readonly<Record<string, string>>,
): Files & { written: Record<string, string> } {
  const all: Record<string, string> = { ...tree }
  const written: Record<string, string> = {}
  return {
    ...memoryFiles(all),
    written,
    writeText: (path, text) => {
      all[path] = text
      written[path] = text
      return Promise.resolve()
    },
  }
}
