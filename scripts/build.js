// Bundles the three actions with ncc into one file, dist/index.js (committed), plus the lazily
// loaded chunks, and writes dist/<action>/index.js, the one-line entry each action.yml runs.
// `--check` builds in memory and fails when the committed files differ, so a stale dist/
// cannot land.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { transformSync } from 'esbuild'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const ncc = createRequire(import.meta.url)('@vercel/ncc')

/** Each action's folder (as action.yml names it) and the bundle's export that runs it. */
const ENTRIES = { snapshot: 'snapshot', 'build-images': 'buildImages', deploy: 'deploy' }
/** Written by `npm run build`'s generator, not by the bundler: left alone here. */
const NOT_OURS = new Set(['snapshot-config.schema.json'])

async function bundle() {
  const { code, assets } = await ncc(join(root, 'src/index.ts'), {
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
  // again (about 8% smaller) and the lazily loaded chunks (Octokit, the YAML parser…) once.
  const files = { 'index.js': minify(code), 'package.json': '{"type":"module"}\n' }
  for (const [name, asset] of Object.entries(assets)) {
    const source = asset.source.toString()
    files[name] = name.endsWith('.js') ? minify(source) : source
  }
  for (const [folder, exported] of Object.entries(ENTRIES))
    files[`${folder}/index.js`] = `import{${exported}}from'../index.js';await ${exported}()\n`
  files['.npmignore'] = npmIgnore(files)
  return files
}

/**
 * The npm package leaves out the chunk of GitHub's Actions cache client (@actions/cache and the
 * Azure SDK it uploads with, two fifths of the package): only a GitHub action's own process gets
 * the cache service's token (ACTIONS_RUNTIME_TOKEN), so the package's users (GitLab jobs, the
 * command line, even in a GitHub `run:` step) never load it. The actions run from the repository.
 */
function npmIgnore(files) {
  const cache = Object.keys(files).filter(
    (name) =>
      name.endsWith('.js') && files[name].includes('github.actions.results.api.v1.CacheService'),
  )
  if (cache.length !== 1) throw new Error(`expected one Actions cache chunk, found ${cache.length}`)
  return `# Written by scripts/build.js: the Actions cache client, which only the GitHub actions load.\n${cache[0]}\n`
}

function minify(code) {
  return transformSync(code, {
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none',
  }).code
}

/** Every file under dist/ the bundler owns, as paths relative to dist/. */
async function committedFiles() {
  const entries = await readdir(dist, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dist.length + 1))
    .filter((name) => !NOT_OURS.has(name))
}

async function write(files) {
  for (const name of await committedFiles()) await rm(join(dist, name))
  for (const folder of Object.keys(ENTRIES)) await mkdir(join(dist, folder), { recursive: true })
  for (const [name, content] of Object.entries(files)) await writeFile(join(dist, name), content)
}

async function stale(files) {
  const problems = []
  for (const [name, content] of Object.entries(files)) {
    const committed = await readFile(join(dist, name), 'utf8').catch(() => undefined)
    if (committed !== content)
      problems.push(`dist/${name} ${committed === undefined ? 'is missing' : 'differs'}`)
  }
  for (const name of await committedFiles())
    if (!(name in files)) problems.push(`dist/${name} is not produced any more`)
  return problems
}

const files = await bundle()
if (process.argv.includes('--check')) {
  const problems = await stale(files)
  if (problems.length > 0) {
    console.error(`dist/ is stale: ${problems.join('; ')}.\nRun 'npm run build' and commit dist/.`)
    process.exit(1)
  }
} else {
  await write(files)
  const kb = (name) => `${(files[name].length / 1024).toFixed(0)} KB`
  const chunks = Object.keys(files).filter((name) => /^\d+\.index\.js$/.test(name))
  console.log(
    `dist/index.js ${kb('index.js')}; lazy chunks: ${chunks.map((c) => `${c} ${kb(c)}`).join(', ')}`,
  )
}
