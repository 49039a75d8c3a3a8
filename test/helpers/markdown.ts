// Markdown as GitHub shows it, for the documentation tests: the anchors its headings get, the
// links a reader can follow, the regions the generator writes, and the fenced examples of every
// Markdown file of the repository (README.md, docs/, gitlab/README.md, CONTRIBUTING.md,
// SECURITY.md, and any added later; what node_modules and the test fixtures hold aside). Tests
// pick examples by language and content, never by where they are, so that moving a section from
// one file to another changes nothing.
import GithubSlugger from 'github-slugger'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, normalize, relative } from 'node:path'

const ROOT = join(import.meta.dirname, '../..')
const markdownIn = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `${folder}/${file}`)
    .sort()

/**
 * The documents a reader browses in the repository: the README and its neighbours, every guide in
 * docs/, the GitLab guide and each action folder's README (CHANGELOG.md is history: not checked).
 */
export const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  'gitlab/README.md',
  ...markdownIn('docs'),
  ...markdownIn('actions'),
]

/** The text without fenced code blocks and HTML comments, which hold neither links nor headings. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/<!--[\s\S]*?-->/g, '')
}

/** A heading's text as GitHub renders it: code spans, links and emphasis reduced to their text. */
function headingText(markdown: string): string {
  return markdown
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*)(.+?)\1/g, '$2')
    .trim()
}

/** The anchors of a document's headings, numbered as GitHub numbers repeated ones (`-1`, `-2`). */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger()
  const anchors = new Set<string>()
  for (const match of prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm))
    anchors.add(slugger.slug(headingText(match[1] ?? '')))
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1] ?? '')
  return anchors
}

/** Every link target of a document: inline links and reference definitions, outside code. */
export function linksOf(text: string): string[] {
  const outsideCode = prose(text).replace(/`[^`\n]*`/g, 'code')
  const inline = [...outsideCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
  const references = [...outsideCode.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)]
  return [...inline, ...references].map((match) => match[1] ?? '')
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i

/** A link of `document` that leads nowhere, and why. */
export interface BrokenLink {
  document: string
  link: string
  problem: string
}

/** The relative links of `document` (a path under `root`) that lead nowhere, with why. */
export function brokenLinks(root: string, document: string): BrokenLink[] {
  const text = readFileSync(join(root, document), 'utf8')
  const broken: BrokenLink[] = []
  for (const link of linksOf(text)) {
    if (EXTERNAL.test(link)) continue
    const [path = '', anchor] = link.split('#', 2)
    const target = path === '' ? document : normalize(join(dirname(document), decodeURI(path)))
    const problem = missing(root, target, anchor)
    if (problem) broken.push({ document, link, problem })
  }
  return broken
}

function missing(root: string, target: string, anchor: string | undefined): string | undefined {
  if (target.startsWith('..') || !existsSync(join(root, target)))
    return `'${target}' does not exist in the repository`
  if (anchor === undefined) return undefined
  if (statSync(join(root, target)).isDirectory() || !target.endsWith('.md'))
    return `'${target}' is not a Markdown document, so it has no anchor '#${anchor}'`
  const anchors = anchorsOf(readFileSync(join(root, target), 'utf8'))
  return anchors.has(anchor) ? undefined : `'${target}' has no heading whose anchor is '#${anchor}'`
}

/** The relative links of `document` that lead out of `folder` (both paths under the root). */
export function linksOutOf(root: string, document: string, folder: string): string[] {
  const text = readFileSync(join(root, document), 'utf8')
  return linksOf(text).filter((link) => {
    if (EXTERNAL.test(link) || link.startsWith('#')) return false
    const target = join(dirname(document), link.split('#')[0] ?? '')
    return relative(folder, target).startsWith('..')
  })
}

/** The generated regions of a text, by key (`<!-- BEGIN GENERATED: key -->`), with their content. */
export function generatedRegions(text: string): { key: string; content: string }[] {
  return [
    ...text.matchAll(/<!-- BEGIN GENERATED: ([^>]*?) -->\n([\s\S]*?)<!-- END GENERATED: \1 -->/g),
  ].map((match) => ({ key: match[1] ?? '', content: match[2] ?? '' }))
}

const SEPARATOR = /^\|(\s*:?-+:?\s*\|)+$/

/** The first cell of each body row of the Markdown tables in `text` (header rows left out). */
export function firstCells(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trim())
  return lines
    .filter(
      (line, index) =>
        line.startsWith('|') && !SEPARATOR.test(line) && !SEPARATOR.test(lines[index + 1] ?? ''),
    )
    .map((line) => (line.split('|')[1] ?? '').trim())
}

export interface DocBlock {
  /** Relative to the repository, and the line of the opening fence: for messages only. */
  file: string
  line: number
  /** The fence's info word, lower-case: `sh`, `yaml`, `dockerfile`… ('' when none). */
  lang: string
  /** The block's lines, the fence's indentation removed (a block inside a list item). */
  text: string
}

const SKIPPED = new Set(['node_modules', '.git', 'dist', 'coverage'])

/** Every Markdown file of the repository, sorted, but node_modules and test/fixtures. */
export async function markdownFiles(root = ROOT): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (SKIPPED.has(entry.name) || relative(root, path) === join('test', 'fixtures')) continue
        await walk(path)
      } else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path)
    }
  }
  await walk(root)
  return found.sort()
}

/** The fenced blocks of one Markdown text, as CommonMark finds them (``` or ~~~, indented or not). */
export function fencedBlocks(markdown: string, file: string): DocBlock[] {
  const blocks: DocBlock[] = []
  const lines = markdown.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[index] ?? '')
    if (!open) continue
    const [, indent = '', fence = '', lang = ''] = open
    const close = new RegExp(`^\\s*\\${fence.charAt(0)}{${fence.length},}\\s*$`)
    const body: string[] = []
    let end = index + 1
    for (; end < lines.length && !close.test(lines[end] ?? ''); end++) {
      const line = lines[end] ?? ''
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart())
    }
    blocks.push({ file, line: index + 1, lang: lang.toLowerCase(), text: body.join('\n') })
    index = end
  }
  return blocks
}

/** Every fenced block of every Markdown file of the repository. */
export async function docBlocks(root = ROOT): Promise<DocBlock[]> {
  const blocks: DocBlock[] = []
  for (const path of await markdownFiles(root))
    blocks.push(...fencedBlocks(await readFile(path, 'utf8'), relative(root, path)))
  return blocks
}

/** A GitHub workflow: YAML with `on:` and `jobs:` at its top level. */
export function isWorkflow(block: DocBlock): boolean {
  return block.lang === 'yaml' && /^on:/m.test(block.text) && /^jobs:/m.test(block.text)
}

/** `file:line`, for messages. */
export function where(block: DocBlock): string {
  return `${block.file}:${block.line}`
}
