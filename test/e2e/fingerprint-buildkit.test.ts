// The fingerprint against BuildKit itself: generated Dockerfiles (parser directives, heredocs,
// words holding `<<`, line continuations, build arguments, wildcards) and contexts (folders,
// links inside and across folders, absolute and dangling links, .dockerignore files with `**`,
// `!` exceptions, a leading `/`, trailing spaces), each changed once. For every pair the
// fingerprint calls unchanged, the engine builds both (`FROM scratch`, exported with
// `--output type=local`): their files must be the same, path, kind, mode and content. Seeded and
// bounded: the same 80 cases every run.
import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import { readBuildInputs } from '../../src/core/dockerfile/build-inputs.js'
import { readIgnoreFile } from '../../src/core/dockerfile/dockerignore.js'
import { fingerprintOf, sourceDigest } from '../../src/core/build-images/reuse/fingerprint.js'
import { isProblem } from '../../src/core/shared/problem.js'
import { nodeFiles } from '../../src/tools/files.js'
import { useCleanup } from '../helpers/suite.js'
import { ensureDockerDaemon, run } from '../helpers/docker-env.js'

const SEED = 2311
const CASES = 80
const cleanup = useCleanup(60_000)

/** A context: files (path to content) and links (path to target). */
interface Context {
  files: Record<string, string>
  links: Record<string, string>
  ignore?: string[]
}

interface Case {
  dockerfile: string
  before: Context
  after: Context
  change: string
}

const FILES = ['a/f1.txt', 'a/x.js', 'a/c/y.js', 'b/x.js', 'b/keep.txt', 'top.txt']
const CONTENTS = ['one\n', 'two\n', 'three\n']
const LINK_TARGETS = ['../b/x.js', '/b/x.js', 'x.js', '../a/c', '/missing', 'c/y.js']
const LINKS = ['a/l.js', 'a/c/l.txt', 'b/l.js']
const PATTERNS = [
  'b',
  '*.txt',
  'a/**/y.js',
  '!b/keep.txt',
  '**/x.js',
  '/a/c',
  'a/c ',
  '# a comment',
  '!a/c/y.js',
  'top.txt',
  '**',
  '!**/l.js',
]

/** One instruction template each; `E` is the escape token in force. */
const INSTRUCTIONS: Array<(escape: string) => string> = [
  () => 'COPY a /out/a',
  () => 'COPY ${D} /out/d',
  () => 'COPY a/*.js /out/js/',
  () => 'COPY */x.js /out/xs/',
  () => 'COPY b/x.js /out/bx',
  () => 'COPY top.txt /out/top',
  () => 'COPY a/l.js /out/al',
  () => 'COPY <<EOF /out/h.txt\nCOPY b /out/hidden\nEOF',
  () => 'LABEL note=shift<<EOF',
  (e) => `COPY b ${e}\n  /out/b`,
  (e) => `COPY a/c ${e}\n# a comment\n  /out/c`,
  // With the ` escape token, a trailing \ is text: the next line is an instruction of its own.
  (e) => (e === '`' ? 'ENV N=end\\' : 'ENV N=end'),
  () => 'ARG D=b',
  () => 'ADD a/c /out/added',
  () => 'COPY . /out/all',
]

const contextArb: fc.Arbitrary<Context> = fc.record({
  files: fc.dictionary(fc.constantFrom(...FILES), fc.constantFrom(...CONTENTS), { minKeys: 3 }),
  // a/l.js always: the wildcard `a/*.js` then matches a link.
  links: fc
    .tuple(
      fc.constantFrom(...LINK_TARGETS),
      fc.dictionary(fc.constantFrom(...LINKS), fc.constantFrom(...LINK_TARGETS)),
    )
    .map(([target, others]) => ({ ...others, 'a/l.js': target })),
  ignore: fc.option(fc.subarray(PATTERNS, { maxLength: 4 }), { nil: undefined }),
})

/** Files no instruction names: a change there is one BuildKit may not read. */
const UNREAD = ['z/unused.txt', 'b/sub/deep.txt', 'a/c/new.txt']

/** One change: a file's content (most often), a link, or the ignore file. */
const changeArb = (before: Context): fc.Arbitrary<[Context, string]> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...FILES, ...UNREAD), fc.constantFrom(...CONTENTS, 'changed\n'))
        .map(([path, content]): [Context, string] => [
          { ...before, files: { ...before.files, [path]: content } },
          `${path} now holds ${JSON.stringify(content)}`,
        ]),
    },
    {
      // What a link points to: BuildKit reads it when it copies the link as a source.
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(before.links)), fc.constantFrom('changed\n', 'two\n'))
        .map(([link, content]): [Context, string] => {
          const target = before.links[link] ?? ''
          const resolved = target.startsWith('/')
            ? target.slice(1)
            : posix.normalize(posix.join(posix.dirname(link), target))
          // A folder or nothing there: some file then, all the same.
          const path = FILES.includes(resolved) ? resolved : 'z/unused.txt'
          return [
            { ...before, files: { ...before.files, [path]: content } },
            `${path} (what ${link} points to) now holds ${JSON.stringify(content)}`,
          ]
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...LINKS), fc.constantFrom(...LINK_TARGETS))
        .map(([path, target]): [Context, string] => {
          const files = Object.fromEntries(
            Object.entries(before.files).filter(([file]) => file !== path),
          )
          return [
            { ...before, files, links: { ...before.links, [path]: target } },
            `${path} -> ${target}`,
          ]
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .subarray(PATTERNS, { maxLength: 4 })
        .map((ignore): [Context, string] => [
          { ...before, ignore },
          `.dockerignore: ${JSON.stringify(ignore)}`,
        ]),
    },
  )

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    escape: fc.constantFrom('\\', '`'),
    directive: fc.boolean(),
    instructions: fc.array(fc.nat(INSTRUCTIONS.length - 1), { minLength: 2, maxLength: 6 }),
    before: contextArb,
  })
  .chain(({ escape, directive, instructions, before }) => {
    const used = directive ? escape : '\\'
    const lines = [
      ...(directive ? [`# escape=${escape}`] : []),
      'FROM scratch',
      'ARG D=a',
      ...instructions.map((index) => (INSTRUCTIONS[index] as (e: string) => string)(used)),
      'COPY top.txt /out/last',
    ]
    return changeArb(before).map(([after, change]) => ({
      dockerfile: `${lines.join('\n')}\n`,
      before,
      after,
      change,
    }))
  })

async function writeContext(dir: string, context: Context): Promise<void> {
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  for (const [path, content] of Object.entries(context.files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  for (const [path, target] of Object.entries(context.links)) {
    if (path in context.files) continue
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await symlink(target, join(dir, path))
  }
  if (context.ignore) await writeFile(join(dir, '.dockerignore'), `${context.ignore.join('\n')}\n`)
}

const sha = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex')

/** The fingerprint as build-images computes it for this context; undefined: not reusable. */
async function fingerprint(dockerfile: string, root: string): Promise<string | undefined> {
  const inputs = readBuildInputs(dockerfile, [], () => undefined)
  if (inputs.unknowable) return undefined
  const ignoreText = await readFile(join(root, '.dockerignore'), 'utf8').catch(() => undefined)
  const rules = ignoreText === undefined ? undefined : readIgnoreFile(ignoreText)
  if (rules && 'invalid' in rules) return undefined
  const view = {
    root,
    files: nodeFiles,
    ignore: rules && 'matcher' in rules ? rules.matcher : undefined,
  }
  const sources: Array<[string, string | null]> = []
  for (const source of inputs.sources) {
    const digest = await sourceDigest(source, view)
    if (isProblem(digest)) return undefined
    sources.push([source, digest.digest])
  }
  return fingerprintOf({
    dockerfile: sha(dockerfile),
    ignoreFiles: [['.dockerignore', ignoreText === undefined ? null : sha(ignoreText)]],
    sources,
    pinned: inputs.pinned,
    images: [],
    buildArgs: [],
    labels: [],
    platform: 'linux/amd64',
  })
}

/** What BuildKit built: each path with its kind, mode and content; or why the build failed. */
async function build(dockerfile: string, root: string, out: string): Promise<string[] | string> {
  await rm(out, { recursive: true, force: true })
  try {
    await run(
      'docker',
      [
        'buildx',
        'build',
        '--progress=quiet',
        '--file',
        dockerfile,
        '--output',
        `type=local,dest=${out}`,
        root,
      ],
      { timeoutMs: 120_000 },
    )
  } catch {
    return 'the build failed'
  }
  const found: string[] = []
  for (const name of (await readdir(out, { recursive: true })).sort()) {
    const path = join(out, name)
    const info = await lstat(path)
    const mode = (info.mode & 0o7777).toString(8)
    if (info.isSymbolicLink()) found.push(`${name} link ${await readlink(path)}`)
    else if (info.isFile()) found.push(`${name} file ${mode} ${sha(await readFile(path))}`)
    else found.push(`${name} dir ${mode}`)
  }
  return found
}

describe('the fingerprint against BuildKit', () => {
  test(`in ${CASES} generated cases, every pair the fingerprint calls unchanged builds the same files`, async () => {
    await ensureDockerDaemon()
    const work = await cleanup.tempDir('olympe-fingerprint-buildkit-')
    const cases = fc.sample(caseArb, { seed: SEED, numRuns: CASES })
    const mismatches: string[] = []
    let compared = 0
    let changed = 0
    for (const [index, each] of cases.entries()) {
      const dockerfile = join(work, `case-${index}.Dockerfile`)
      await writeFile(dockerfile, each.dockerfile)
      const contexts = [join(work, `before-${index}`), join(work, `after-${index}`)]
      await writeContext(contexts[0] as string, each.before)
      await writeContext(contexts[1] as string, each.after)
      const [first, second] = await Promise.all(
        contexts.map((root) => fingerprint(each.dockerfile, root)),
      )
      if (first === undefined || first !== second) {
        changed++
        continue
      }
      const built = []
      for (const [side, root] of contexts.entries())
        built.push(await build(dockerfile, root, join(work, `out-${index}-${side}`)))
      // Two failed builds are equal, and prove nothing: only pairs built on both sides count.
      if (built.every((files) => Array.isArray(files))) compared++
      if (JSON.stringify(built[0]) !== JSON.stringify(built[1]))
        mismatches.push(
          `case ${index} (${each.change}):\n${each.dockerfile}${JSON.stringify(built, null, 1)}`,
        )
    }
    expect(mismatches).toEqual([])
    // Neither side vacuous: many pairs were built on both sides, and changes were seen.
    expect({ compared: compared >= 8, changed: changed >= 5 }).toEqual({
      compared: true,
      changed: true,
    })
  }, 600_000)
})
