// The fenced examples of the documentation: every Markdown file of the repository (README.md,
// docs/, gitlab/README.md, CONTRIBUTING.md, SECURITY.md, and any added later), but what
// node_modules and the test fixtures hold. A block keeps its file and line for messages; tests
// pick blocks by language and content, never by where they are, so that moving a section from
// one file to another changes nothing.
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { ROOT } from './run-action.js'

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
