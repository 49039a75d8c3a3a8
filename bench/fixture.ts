// A real-sized Olympe project for the build-images bench, generated deterministically (same
// seed, same bytes) into a temporary folder: never downloaded, never committed.
import { createCipheriv, createHash } from 'node:crypto'
import { cp, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

const ROOT = join(import.meta.dirname, '..')
const DOCKERFILES = join(ROOT, 'test/fixtures/sample-project/docker')
export const FIXTURE_DRAW_VERSION = '2.11.3'

/**
 * Deterministic bytes: AES-128-CTR over zeros, keyed by a label. Fast (hundreds of MB/s) and,
 * like fonts, images and native modules, incompressible.
 */
class Stream {
  private readonly cipher
  constructor(label: string) {
    const key = createHash('sha256').update(label).digest()
    this.cipher = createCipheriv('aes-128-ctr', key.subarray(0, 16), key.subarray(16, 32))
  }
  bytes(length: number): Buffer {
    return this.cipher.update(Buffer.alloc(length))
  }
  /** 0 ≤ n < limit. */
  below(limit: number): number {
    return this.bytes(4).readUInt32LE(0) % limit
  }
}

/**
 * Source-like text: words drawn from a vocabulary of 4,096 identifiers and punctuation, which
 * gzip compresses about as much as minified JavaScript (to about a third).
 */
function textOf(stream: Stream, length: number): Buffer {
  const vocabulary = VOCABULARY
  const picks = stream.bytes(Math.ceil(length / 3) * 2)
  const out = Buffer.alloc(length)
  let at = 0
  for (let i = 0; at < length; i += 2) {
    const word = vocabulary[picks.readUInt16LE(i % (picks.length - 1)) & 4095] as Buffer
    at += word.copy(out, at)
  }
  return out
}

const VOCABULARY: Buffer[] = (() => {
  const stream = new Stream('vocabulary')
  const punctuation = ['(', ')', '{', '}', ';', ',', '.', '=', '=>', ':', '"', '\n', ' ', '[', ']']
  const keywords = ['function', 'return', 'const', 'let', 'this', 'new', 'if', 'else', 'await']
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$'
  const words: Buffer[] = []
  for (let i = 0; i < 4096; i++) {
    if (i % 3 === 0) words.push(Buffer.from(punctuation[i % punctuation.length] ?? ' '))
    else if (i % 7 === 0) words.push(Buffer.from(`${keywords[i % keywords.length] ?? ''} `))
    else {
      const size = 2 + stream.below(10)
      const name = Array.from(stream.bytes(size), (b) => letters[b % letters.length]).join('')
      words.push(Buffer.from(name))
    }
  }
  return words
})()

/** Sizes that add up to `total` over `count` files, skewed as real bundles are (a few big ones). */
function sizes(stream: Stream, count: number, total: number): number[] {
  const weights = Array.from({ length: count }, () => {
    const u = (stream.below(1_000_000) + 1) / 1_000_001
    return Math.pow(u, 3) + 0.02
  })
  const sum = weights.reduce((a, b) => a + b, 0)
  return weights.map((w) => Math.max(64, Math.round((w / sum) * total)))
}

interface Part {
  /** Under the part's folder; `{i}` is the file's number. */
  path: (i: number, stream: Stream) => string
  count: number
  bytes: number
  text: boolean
}

async function writePart(folder: string, label: string, part: Part): Promise<number> {
  const stream = new Stream(label)
  let written = 0
  for (const [i, size] of sizes(stream, part.count, part.bytes).entries()) {
    const path = join(folder, part.path(i, stream))
    await mkdir(dirname(path), { recursive: true })
    const content = part.text ? textOf(stream, size) : stream.bytes(size)
    await writeFile(path, content)
    written += size
  }
  return written
}

const MB = 1024 * 1024

/** dist/web: about 40 MB in about 2,000 files (JS bundles, CSS, fonts, images). */
const FRONTEND: Record<string, Part> = {
  js: { count: 1_450, bytes: 23 * MB, text: true, path: (i) => `static/js/chunk-${i}.js` },
  css: { count: 90, bytes: 2 * MB, text: true, path: (i) => `static/css/style-${i}.css` },
  fonts: { count: 60, bytes: 4 * MB, text: false, path: (i) => `static/fonts/font-${i}.woff2` },
  images: { count: 380, bytes: 10 * MB, text: false, path: (i) => `static/img/image-${i}.png` },
  svg: { count: 20, bytes: 1 * MB, text: true, path: (i) => `static/img/icon-${i}.svg` },
}

/** dist/node: about 150 MB of node_modules in about 15,000 files, plus the bundle. */
const PACKAGES = 700
const packagePath = (i: number, stream: Stream, file: string): string =>
  `node_modules/pkg-${i % PACKAGES}/${file.replace('{n}', String(stream.below(6)))}`
const BACKEND: Record<string, Part> = {
  js: {
    count: 11_000,
    bytes: 95 * MB,
    text: true,
    path: (i, s) => packagePath(i, s, `lib/m{n}/f-${i}.js`),
  },
  types: {
    count: 2_400,
    bytes: 15 * MB,
    text: true,
    path: (i, s) => packagePath(i, s, `types/t{n}/d-${i}.d.ts`),
  },
  meta: {
    count: PACKAGES,
    bytes: 3 * MB,
    text: true,
    path: (i) => `node_modules/pkg-${i}/package.json`,
  },
  docs: {
    count: 600,
    bytes: 7 * MB,
    text: true,
    path: (i, s) => packagePath(i, s, `README-${i}.md`),
  },
  native: {
    count: 300,
    bytes: 30 * MB,
    text: false,
    path: (i, s) => packagePath(i, s, `build/native-${i}.node`),
  },
  bundle: { count: 1, bytes: 6 * MB, text: true, path: () => 'main.js' },
}

/** dist/codeAsData: about 10 MB of patches. */
const CODEASDATA: Record<string, Part> = {
  patches: {
    count: 240,
    bytes: 10 * MB,
    text: true,
    path: (i) => `patches/p${String(i).padStart(4, '0')}.json`,
  },
}

export interface Fixture {
  root: string
  files: number
  bytes: Record<'frontend' | 'backend' | 'codeasdata', number>
  /** The frontend file the "one file changed" runs rewrite, and its generated content. */
  changedFile: string
  original: Buffer
}

export async function generateFixture(root: string): Promise<Fixture> {
  await cp(DOCKERFILES, join(root, 'docker'), { recursive: true })
  const version = JSON.stringify({ version: FIXTURE_DRAW_VERSION })
  const write = async (
    folder: string,
    parts: Record<string, Part>,
    extra: Record<string, string>,
  ): Promise<{ bytes: number; files: number }> => {
    let bytes = 0
    let files = 0
    for (const [name, part] of Object.entries(parts)) {
      bytes += await writePart(join(root, folder), `${folder}/${name}`, part)
      files += part.count
    }
    for (const [path, text] of Object.entries(extra)) {
      await writeFile(join(root, folder, path), text)
      bytes += text.length
      files++
    }
    return { bytes, files }
  }
  const web = await write('dist/web', FRONTEND, {
    'index.html': '<!doctype html><script src="static/js/chunk-0.js"></script>\n',
    'version.json': version,
  })
  const node = await write('dist/node', BACKEND, {})
  const cad = await write('dist/codeAsData', CODEASDATA, {
    'import_order.json': '[]',
    'version.json': version,
  })
  await writeFile(join(root, 'package.json'), '{"name":"bench-project","private":true}\n')
  const changedFile = join(root, 'dist/web/static/js/chunk-1.js')
  return {
    root,
    files: web.files + node.files + cad.files,
    bytes: { frontend: web.bytes, backend: node.bytes, codeasdata: cad.bytes },
    changedFile,
    original: await readFile(changedFile),
  }
}

/** A small backend's build output: its bundle and some 150 files of node_modules, about 3 MB. */
const SMALL_BACKEND: Record<string, Part> = {
  bundle: { count: 1, bytes: 1 * MB, text: true, path: () => 'main.js' },
  js: {
    count: 140,
    bytes: 1.5 * MB,
    text: true,
    path: (i) => `node_modules/pkg-${i % 20}/lib/f-${i}.js`,
  },
  meta: { count: 20, bytes: 40_000, text: true, path: (i) => `node_modules/pkg-${i}/package.json` },
  native: { count: 2, bytes: 0.5 * MB, text: false, path: (i) => `node_modules/pkg-${i}/n.node` },
}

export interface BackendsFixture extends Omit<Fixture, 'bytes'> {
  bytes: { frontend: number; backends: number }
  /** Each backend's name and its build output, as `backends` lists them. */
  backends: Array<{ name: string; sources: string }>
}

/**
 * The real-sized frontend (dist/web) beside `count` small backends of their own code bases
 * (dist/backends/<name>, each built from docker/backend.Dockerfile): no code as data.
 */
export async function generateBackendsFixture(
  root: string,
  count: number,
): Promise<BackendsFixture> {
  await cp(DOCKERFILES, join(root, 'docker'), { recursive: true })
  const version = JSON.stringify({ version: FIXTURE_DRAW_VERSION })
  let files = 2
  let frontend = 0
  for (const [name, part] of Object.entries(FRONTEND)) {
    frontend += await writePart(join(root, 'dist/web'), `dist/web/${name}`, part)
    files += part.count
  }
  await writeFile(join(root, 'dist/web/index.html'), '<!doctype html>\n')
  await writeFile(join(root, 'dist/web/version.json'), version)
  const backends: BackendsFixture['backends'] = []
  let bytes = 0
  for (let i = 1; i <= count; i++) {
    const name = `svc-${String(i).padStart(2, '0')}`
    const sources = `dist/backends/${name}`
    for (const [part, spec] of Object.entries(SMALL_BACKEND)) {
      bytes += await writePart(join(root, sources), `${sources}/${part}`, spec)
      files += spec.count
    }
    backends.push({ name, sources })
  }
  await writeFile(join(root, 'package.json'), '{"name":"bench-backends","private":true}\n')
  const changedFile = join(root, 'dist/web/static/js/chunk-1.js')
  return {
    root,
    files,
    bytes: { frontend, backends: bytes },
    backends,
    changedFile,
    original: await readFile(changedFile),
  }
}

/** Edits the one file for run `n` (a different content each run), as a developer would. */
export async function changeOneFile(
  fixture: Pick<Fixture, 'changedFile' | 'original'>,
  n: number,
): Promise<void> {
  const edit = Buffer.from(`\nexport const build${n} = ${n};\n`)
  await writeFile(fixture.changedFile, Buffer.concat([fixture.original, edit]))
}

export async function restoreChangedFile(fixture: Fixture): Promise<void> {
  await writeFile(fixture.changedFile, fixture.original)
}

/** New times on every file and folder, as a fresh checkout gives them. */
export async function freshCheckout(dir: string, run: number): Promise<void> {
  const when = new Date(Date.now() + run * 60_000)
  for (const name of ['', ...(await readdir(dir, { recursive: true }))])
    await utimes(join(dir, name), when, when)
}
