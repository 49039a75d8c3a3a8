// What a folder holds, for tests that compare it with the files they expect.
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'

/** The files under `dir`, at any depth (folders and links left out), as sorted relative paths. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort()
}
