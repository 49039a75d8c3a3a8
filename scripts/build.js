// Bundles the actions with ncc into one file, dist/index.js (committed), plus the lazily loaded
// chunks, and writes dist/<action>/index.js, the one-line entry each action.yml runs.
// `--check` builds in memory and fails when the committed files differ, so a stale dist/
// cannot land. `undici` is left out (see UNDICI below).
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { transformSync } from 'esbuild'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tsImport } from 'tsx/esm/api'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const ncc = createRequire(import.meta.url)('@vercel/ncc')

/** The actions, as src/core/action-list.ts lists them: each one's folder, as action.yml names it. */
const { ACTION_IDS } = await tsImport('../src/core/action-list.ts', import.meta.url)
/** Written by `npm run build`'s generator, not by the bundler: left alone here. */
const NOT_OURS = new Set(['snapshot-config.schema.json'])

async function bundle() {
  const { code, assets, stats } = await ncc(join(root, 'src/index.ts'), {
    esm: true,
    minify: true,
    license: 'licenses.txt',
    quiet: true,
    cache: false,
    target: 'es2022',
    // Types are checked once by `npm run typecheck`; bundling only transpiles.
    transpileOnly: true,
    // An external mapped to another request: every `undici` import loads dist/undici-absent.cjs.
    externals: { undici: `./${UNDICI.file}` },
  })
  checkUndiciUsers(stats)
  // ncc minifies the entry file only, and less tightly than esbuild: esbuild minifies the entry
  // again (about 8% smaller) and the lazily loaded chunks (Octokit, the YAML parser…) once.
  const files = { 'index.js': minify(code), 'package.json': '{"type":"module"}\n' }
  for (const [name, asset] of Object.entries(assets)) {
    const source = asset.source.toString()
    files[name] = name.endsWith('.js') ? minify(source) : source
  }
  for (const id of ACTION_IDS)
    files[`${id}/index.js`] =
      `import{runActionStep}from'../index.js';await runActionStep('${id}')\n`
  files['.npmignore'] = npmIgnore(files)
  files[UNDICI.file] = UNDICI.source
  return files
}

/**
 * undici (415 KB minified, half of dist/index.js) is left out of the bundle. Two libraries import
 * it for code we never run: @actions/http-client's getAgentDispatcher(), a proxy dispatcher for
 * fetch and Octokit (our requests go through its request methods: node:http, and the `tunnel`
 * package for a proxy), and @actions/github's fetch for getOctokit() (we read its `context` only;
 * but behind a proxy, loading it makes a ProxyAgent for Octokit's defaults). Each import gets this
 * stand-in: its ProxyAgent can be made, and a request through it, or through its fetch, throws an
 * error that names what needed undici. Left out, undici also no longer replaces Node's own fetch
 * dispatcher (it sets a global one when it loads; we do not use fetch). Nothing else may import
 * undici: checkUndiciUsers fails the build if something does.
 */
const UNDICI = {
  file: 'undici-absent.cjs',
  /** The modules that import undici (their paths after the last node_modules/). */
  users: ['@actions/http-client/lib/index.js', '@actions/github/lib/internal/utils.js'],
  /** What they import from it: all the stand-in exports. */
  exports: ['ProxyAgent', 'fetch'],
  source: `// Written by scripts/build.js: what \`undici\` resolves to in this bundle, which leaves it out.
'use strict'
const absent = (what) =>
  new Error(
    \`undici is not bundled: olympe-deploy-actions sends its requests with node:http, and \${what} needs undici, which scripts/build.js leaves out of dist/\`,
  )
// Made, never used, when @actions/github loads behind a proxy: only a request through it fails.
class ProxyAgent {
  async close() {}
  async destroy() {}
}
for (const method of ['dispatch', 'request', 'stream', 'pipeline', 'connect', 'upgrade'])
  ProxyAgent.prototype[method] = () => {
    throw absent("a request through @actions/http-client's getAgentDispatcher() (fetch or Octokit through a proxy)")
  }
exports.ProxyAgent = ProxyAgent
exports.fetch = async () => {
  throw absent("@actions/github's getOctokit() (its fetch)")
}
`,
}

/**
 * Every module that imports undici must be one UNDICI names, taking only what the stand-in
 * exports: a library update that starts using undici elsewhere fails here, not in a user's job.
 */
function checkUndiciUsers(stats) {
  const problems = []
  // A concatenated module (webpack's scope hoisting) holds the modules it joined.
  for (const outer of stats.compilation.modules)
    for (const module of outer.modules ?? [outer])
      for (const dependency of module.dependencies) {
        if (dependency.request !== 'undici') continue
        const user = (module.resource ?? '').replace(/^.*node_modules\//, '')
        const names = dependency.ids ?? []
        if (!UNDICI.users.includes(user)) problems.push(`${user} imports undici`)
        for (const name of names)
          if (!UNDICI.exports.includes(name)) problems.push(`${user} imports undici's ${name}`)
      }
  if (problems.length > 0)
    throw new Error(
      `${[...new Set(problems)].join('; ')}: scripts/build.js leaves undici out of the bundle and gives its users a stand-in with ${UNDICI.exports.join(' and ')} only. Check what the new use is for: if a path of ours runs it, bundle undici again; if not, add it to UNDICI.`,
    )
}

/**
 * The npm package leaves out the chunk of GitHub's Actions cache client (@actions/cache and the
 * Azure SDK it uploads with, the largest chunk): only a GitHub action's own process gets
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
  for (const id of ACTION_IDS) await mkdir(join(dist, id), { recursive: true })
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
