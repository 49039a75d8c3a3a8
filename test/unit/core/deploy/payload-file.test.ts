import { describe, expect, test } from '@jest/globals'
import {
  MAX_PAYLOAD_FILE_BYTES,
  readBasePayload,
} from '../../../../src/core/deploy/payload-file.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import type { Files, PathKind } from '../../../../src/core/shared/ports.js'
import { memoryFiles } from '../../../helpers/memory-files.js'

const WS = '/ws'
const DIGEST = `sha256:${'c'.repeat(64)}`

async function problemOf(text: string, path = 'p.json'): Promise<string> {
  const error = await readBasePayload(path, WS, memoryFiles({ [`${WS}/${path}`]: text })).then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(InputError)
  expect((error as InputError).input).toBe('payload-file')
  return (error as InputError).message
}

/** A path that is there but is not a regular file, as the Files port reports it. */
function special(kind: PathKind, size = 0): Files {
  const files = memoryFiles({})
  return {
    ...files,
    stat: () => Promise.resolve({ kind, size }),
    readText: () => Promise.reject(new Error('must not be read')),
  }
}

describe('payload-file', () => {
  test('a valid base payload, with or without a byte order mark', async () => {
    const base = {
      frontend: {},
      backends: {
        images: ['r.io/shop/api:1', `r.io/shop/worker@${DIGEST}`],
        deployRules: [{ source: 'api', target: '^(?!legacy).*$' }],
      },
      codeAsData: { updateMode: 'auto' },
      extraArgs: ['--force-sync'],
    }
    for (const text of [JSON.stringify(base), `\uFEFF${JSON.stringify(base, null, 2)}`]) {
      expect(await readBasePayload('p.json', WS, memoryFiles({ '/ws/p.json': text }))).toEqual(base)
    }
  })

  test.each<[string, string, string]>([
    [
      'an invalid image',
      '{"backends": {"images": ["r.io/a:1", "NOT AN IMAGE; rm -rf /"]}}',
      "at backends.images[1]: 'NOT AN IMAGE; rm -rf /' has an invalid registry 'NOT AN IMAGE; rm -rf '; expected '<registry>/<name>:<tag>'",
    ],
    [
      'an untagged frontend image',
      '{"frontend": {"image": "r.io/shop/front"}}',
      "at frontend.image: 'r.io/shop/front' has no tag or digest; expected '<registry>/<name>:<tag>'",
    ],
    [
      'a short digest',
      '{"codeAsData": {"image": "r.io/cad@sha256:abc"}}',
      "at codeAsData.image: 'r.io/cad@sha256:abc' has an invalid digest 'sha256:abc'",
    ],
    [
      'a target that does not compile',
      '{"backends": {"deployRules": [{"source": ".*", "target": "[z-a"}]}}',
      "at backends.deployRules[0].target: '[z-a' is not a valid regular expression",
    ],
    [
      'an extra argument',
      '{"extraArgs": ["--prune"]}',
      "at extraArgs[0]: the only accepted value is '--force-sync'",
    ],
    [
      'a mode out of the enum',
      '{"noDowntime": {"promotionMode": "later"}}',
      "at noDowntime.promotionMode: expected 'auto' or 'manual'",
    ],
    [
      'a boolean given as a string',
      '{"skipUpdateVersions": "true"}',
      'at skipUpdateVersions: expected true or false (a JSON boolean, without quotes), got "true"',
    ],
    [
      'a list given as a string',
      '{"backends": {"images": "r.io/a:1"}}',
      'at backends.images: expected a list ([…]), got "r.io/a:1"',
    ],
  ])('%s: names the file and the JSON path', async (_name, text, problem) => {
    expect(await problemOf(text)).toContain(
      `Invalid input 'payload-file' 'p.json': it does not follow the deployment payload schema: ${problem}`,
    )
  })

  test('a long value is shown by its start only', async () => {
    const secretish = `s3cr3t-${'x'.repeat(500)}`
    const message = await problemOf(JSON.stringify({ skipUpdateVersions: secretish }))
    expect(message).toContain(`got "${secretish.slice(0, 39)}…`)
    expect(message).not.toContain(secretish.slice(0, 60))
  })

  test('a file that is not JSON: where, and one character of it, never its text', async () => {
    const passwd = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n'
    const message = await problemOf(passwd, 'passwd')
    expect(message).toBe(
      "Invalid input 'payload-file' 'passwd': not valid JSON: unexpected 'r' at line 1, column 1.",
    )
  })

  test.each<[string, Files, string]>([
    [
      'no file',
      memoryFiles({}),
      "there is no file at '/ws/p.json'; give a path relative to the workspace",
    ],
    ['a directory', special('directory'), 'it is a directory; give the path of a JSON file'],
    [
      'a FIFO or a device',
      special('other'),
      'it is not a regular file (a FIFO, a socket or a device), which the step could wait on forever; give the path of a JSON file',
    ],
    [
      'a file over 1 MiB',
      special('file', MAX_PAYLOAD_FILE_BYTES + 1),
      'it is 1048577 bytes, more than the 1 MiB (1048576 bytes) a payload file may have; check that it is the right file',
    ],
  ])('%s is refused before being read', async (_name, files, problem) => {
    await expect(readBasePayload('p.json', WS, files)).rejects.toThrow(
      new InputError('payload-file', `Invalid input 'payload-file' 'p.json': ${problem}.`),
    )
  })
})

describe('payload-file stays inside the workspace', () => {
  /** Files whose real paths are given: a symbolic link, as realpath resolves it. */
  function linked(
    tree: Record<string, string>,
    real: Record<string, string>,
  ): {
    files: Files
    read: string[]
  } {
    const files = memoryFiles(tree)
    const read: string[] = []
    return {
      read,
      files: {
        ...files,
        realpath: (path) => Promise.resolve(real[path] ?? path),
        readText: (path) => {
          read.push(path)
          return files.readText(path)
        },
      },
    }
  }

  test('a link to a file outside is refused, naming where it leads, and never read', async () => {
    const { files, read } = linked(
      { '/ws/p.json': '{"frontend": {"image": "TOPSECRET-ab12cd"}}' },
      { '/ws/p.json': '/home/runner/secrets/base.json' },
    )
    const error = await readBasePayload('p.json', WS, files).catch((reason: unknown) => reason)
    expect((error as InputError).message).toBe(
      "Invalid input 'payload-file' 'p.json': it resolves to '/home/runner/secrets/base.json', outside the workspace '/ws'; keep the payload file in the repository (a symbolic link that stays inside it is fine).",
    )
    expect(read).toEqual([])
  })

  test('a path outside, absolute or through ..: refused the same way', async () => {
    for (const path of ['/etc/payload.json', '../payload.json']) {
      const { files, read } = linked({ '/etc/payload.json': '{}', '/payload.json': '{}' }, {})
      const error = await readBasePayload(path, WS, files).catch((reason: unknown) => reason)
      expect((error as InputError).message).toContain(', outside the workspace')
      expect(read).toEqual([])
    }
  })

  test('a link that stays inside the workspace is followed', async () => {
    const { files, read } = linked(
      { '/ws/p.json': '', '/ws/deploy/base.json': '{"codeAsData": {"updateMode": "auto"}}' },
      { '/ws/p.json': '/ws/deploy/base.json' },
    )
    expect(await readBasePayload('p.json', WS, files)).toEqual({
      codeAsData: { updateMode: 'auto' },
    })
    // By its real path, once checked: a link changed meanwhile cannot lead elsewhere.
    expect(read).toEqual(['/ws/deploy/base.json'])
  })

  test('a workspace that is itself reached through a link: compared once both are resolved', async () => {
    const { files } = linked(
      { '/ws/p.json': '{}', '/mnt/builds/ws/p.json': '{}' },
      { '/ws': '/mnt/builds/ws', '/ws/p.json': '/mnt/builds/ws/p.json' },
    )
    expect(await readBasePayload('p.json', WS, files)).toEqual({})
  })
})
