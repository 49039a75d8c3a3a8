// Writes every file generated from the action definitions. `--check` writes nothing and fails
// when a committed file differs, so generated files cannot drift from their one source.
import { readFile, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { generatedFiles } from './generated-files.js'

const root = resolve(import.meta.dirname, '..')
const check = process.argv.includes('--check')
const stale: string[] = []
const files = await generatedFiles((path) => readFile(join(root, path), 'utf8'))
for (const [path, unformatted] of Object.entries(files)) {
  // Formatted as `prettier --check` wants it, so the two checks never disagree.
  const options = (await resolveConfig(join(root, path))) ?? {}
  const content = await format(unformatted, { ...options, filepath: join(root, path) })
  const current = await readFile(join(root, path), 'utf8').catch(() => undefined)
  if (current === content) continue
  if (check) stale.push(path)
  else {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
    console.log(`wrote ${path}`)
  }
}
if (stale.length > 0) {
  console.error(
    `Generated files are stale: ${stale.join(', ')}.\nRun 'npm run build' and commit them.`,
  )
  process.exit(1)
}
