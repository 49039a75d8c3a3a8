// Bundles each action with ncc into dist/<action>/ (committed). `--check` builds in memory and
// fails when the committed files differ, so a stale dist/ cannot land.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { transformSync } from 'esbuild'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ncc = createRequire(import.meta.url)('@vercel/ncc')
const ALL_ACTIONS = (await readdir(join(root, 'src/main')))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort()
// `node scripts/build.js deploy` bundles one action only.
const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const ACTIONS = asked.length > 0 ? ALL_ACTIONS.filter((id) => asked.includes(id)) : ALL_ACTIONS

async function bundle(id) {
  const { code, assets } = await ncc(join(root, 'src/main', `${id}.ts`), {
    esm: true,
    minify: true,
    license: 'licenses.txt',
    quiet: true,
    cache: false,
    target: 'es2022',
    // Types are checked once by `npm run typecheck`; bundling only transpiles.
    transpileOnly: true,
  })
  // ncc minifies the entry file only, and less tightly than esbuild: esbuild minifies the entry
  // again (about 8% smaller) and the lazily loaded chunks (Octokit, the YAML parser) once.
  const files = { 'index.js': minify(code), 'package.json': '{"type":"module"}\n' }
  for (const [name, asset] of Object.entries(assets)) {
    const source = asset.source.toString()
    files[name] = name.endsWith('.js') ? minify(source) : source
  }
  return files
}

function minify(code) {
  return transformSync(code, {
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none',
  }).code
}

async function write(id, files) {
  const dir = join(root, 'dist', id)
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content)
}

async function stale(id, files) {
  const dir = join(root, 'dist', id)
  const present = await readdir(dir).catch(() => [])
  const problems = []
  for (const [name, content] of Object.entries(files)) {
    const committed = await readFile(join(dir, name), 'utf8').catch(() => undefined)
    if (committed !== content)
      problems.push(`dist/${id}/${name} ${committed === undefined ? 'is missing' : 'differs'}`)
  }
  for (const name of present)
    if (!(name in files)) problems.push(`dist/${id}/${name} is not produced any more`)
  return problems
}

const check = process.argv.includes('--check')
const problems = []
for (const id of ACTIONS) {
  const files = await bundle(id)
  if (check) problems.push(...(await stale(id, files)))
  else {
    await write(id, files)
    console.log(`dist/${id}/index.js ${(files['index.js'].length / 1024).toFixed(0)} KB`)
  }
}
if (problems.length > 0) {
  console.error(`dist/ is stale: ${problems.join('; ')}.\nRun 'npm run build' and commit dist/.`)
  process.exit(1)
}
