import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  scriptPaths,
  servedFiles,
} from '../../../../../src/core/build-images/plan/served-files-label.js'
import {
  parseServedFilesLabel,
  SERVED_FILES_LABEL,
  servedFilesLabel,
} from '../../../../../src/core/shared/image-labels.js'
import { nodeFiles } from '../../../../../src/tools/files.js'
import { useCleanup } from '../../../../helpers/suite.js'
import { memoryFiles } from '../../../../helpers/memory-files.js'

const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`
const cleanup = useCleanup()

// The official template's index.html, after its webpack build replaced $VERSION.
const TEMPLATE_INDEX = `<!doctype html>
<html lang="en">
  <head>
    <link rel="stylesheet" type="text/css" href="css/main.css?v=1.4.0" />
    <script type="text/javascript" src="main.js?v=1.4.0"></script>
  </head>
  <body></body>
</html>`

describe('the scripts index.html loads', () => {
  test.each<[string, string, string[]]>([
    ["the template's main.js?v=<version>", TEMPLATE_INDEX, ['main.js']],
    [
      'quotes of either kind, none, a module, a subfolder, ./ and /',
      `<script src='a.js'></script><script type=module src=b/c.js></script><SCRIPT SRC="./d.js#x"></SCRIPT><script src="/e.js"></script>`,
      ['a.js', 'b/c.js', 'd.js', 'e.js'],
    ],
    [
      'another site, an inline script and a comment are left out; a repeat counts once',
      `<script src="https://cdn.example.com/x.js"></script><script src="//cdn.example.com/y.js"></script><script>var src = "z.js"</script><!-- <script src="old.js"></script> --><script src="main.js"></script><script src="main.js?v=2"></script>`,
      ['main.js'],
    ],
  ])('%s', (_name, html, paths) => {
    expect(scriptPaths(html).paths).toEqual(paths)
  })

  test('a path that leaves the folder is left out, and said', () => {
    expect(scriptPaths('<script src="../secret.js"></script>')).toEqual({
      paths: [],
      notes: ['index.html loads "../secret.js", not a path below its folder'],
    })
  })
})

describe("the frontend's served files, hashed", () => {
  test('version.json, index.html and main.js of a template build', async () => {
    const files = memoryFiles({
      '/p/dist/web/version.json': '{"version":"1.4.0"}',
      '/p/dist/web/index.html': TEMPLATE_INDEX,
      '/p/dist/web/main.js': 'console.log(1)',
      '/p/dist/web/css/main.css': 'body{}',
    })
    expect(await servedFiles('/p', 'dist/web', files)).toEqual({
      files: {
        'version.json': sha('{"version":"1.4.0"}'),
        'index.html': sha(TEMPLATE_INDEX),
        'main.js': sha('console.log(1)'),
      },
      notes: [],
    })
  })

  test('a script index.html names that is not there is said; no sources folder, nothing', async () => {
    const files = memoryFiles({ '/p/dist/web/index.html': TEMPLATE_INDEX })
    expect(await servedFiles('/p', 'dist/web', files)).toEqual({
      files: { 'index.html': sha(TEMPLATE_INDEX) },
      notes: ['dist/web/main.js, which index.html loads, is not a file of its own there'],
    })
  })

  test('a link is never followed, inside the folder or out of it', async () => {
    const root = await cleanup.tempDir('olympe-served-files-')
    const web = join(root, 'dist/web')
    await mkdir(web, { recursive: true })
    await writeFile(join(root, 'secret.js'), 'outside')
    await writeFile(
      join(web, 'index.html'),
      '<script src="main.js"></script><script src="js/x.js">',
    )
    await symlink(join(root, 'secret.js'), join(web, 'main.js'))
    await symlink(root, join(web, 'js'))
    const found = await servedFiles(root, 'dist/web', nodeFiles)
    expect(Object.keys(found.files)).toEqual(['index.html'])
    expect(found.notes).toEqual([
      'dist/web/main.js, which index.html loads, is not a file of its own there',
      'dist/web/js/x.js, which index.html loads, is not a file of its own there',
    ])
  })
})

describe(`the ${SERVED_FILES_LABEL} label`, () => {
  const files = { 'main.js': sha('b'), 'index.html': sha('a') }

  test('written with its keys sorted, read back the same', () => {
    const label = servedFilesLabel(files)
    expect(label).toBe(JSON.stringify({ 'index.html': sha('a'), 'main.js': sha('b') }))
    expect(parseServedFilesLabel(label)).toEqual(files)
  })

  test.each<[string, string, string]>([
    ['not JSON', '{main.js', `the ${SERVED_FILES_LABEL} label is not JSON`],
    ['a list', '[]', `the ${SERVED_FILES_LABEL} label is not a JSON object`],
    ['empty', '{}', `the ${SERVED_FILES_LABEL} label names 0 files (1 to 16 expected)`],
    [
      'a path out of the folder',
      JSON.stringify({ '../etc/passwd': sha('x') }),
      `the ${SERVED_FILES_LABEL} label holds an entry that is not a relative path and a sha256: digest`,
    ],
    [
      'an absolute address',
      JSON.stringify({ 'https://evil.example.com/x': sha('x') }),
      `the ${SERVED_FILES_LABEL} label holds an entry that is not a relative path and a sha256: digest`,
    ],
    [
      'a digest of another kind',
      JSON.stringify({ 'main.js': 'md5:abc' }),
      `the ${SERVED_FILES_LABEL} label holds an entry that is not a relative path and a sha256: digest`,
    ],
  ])('refused when %s', (_name, value, problem) => {
    expect(parseServedFilesLabel(value)).toEqual({ problem })
  })
})
