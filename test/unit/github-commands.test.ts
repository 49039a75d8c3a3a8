import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals'
import * as core from '@actions/core'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GithubCommands, workflowCommand } from '../../src/platform/github-commands.js'
import { parseOutputFile } from '../helpers/run-action.js'

/** We speak the runner's protocol ourselves; this holds us to what @actions/core writes. */
const MESSAGES = [
  'plain',
  'multi\nline\r\nmessage',
  '100% done: a, b',
  'ends with %0A literally',
  '',
]

function captureStdout(run: () => void): string {
  let captured = ''
  const spy = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => {
      captured += chunk.toString()
      return true
    })
  try {
    run()
  } finally {
    spy.mockRestore()
  }
  return captured
}

describe('workflow commands match @actions/core', () => {
  test.each(MESSAGES)('warning/error/add-mask/group for %j', (message) => {
    const title = 'olympe deploy: invalid input: a,b'
    expect(`${workflowCommand('warning', message, { title })}\n`).toBe(
      captureStdout(() => core.warning(message, { title })),
    )
    expect(`${workflowCommand('error', message)}\n`).toBe(captureStdout(() => core.error(message)))
    expect(`${workflowCommand('add-mask', message)}\n`).toBe(
      captureStdout(() => core.setSecret(message)),
    )
    expect(`${workflowCommand('group', message)}\n`).toBe(
      captureStdout(() => core.startGroup(message)),
    )
  })
})

describe('GITHUB_OUTPUT matches @actions/core', () => {
  let dir = ''
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gh-out-'))
  })
  afterEach(async () => {
    delete process.env.GITHUB_OUTPUT
    await rm(dir, { recursive: true, force: true })
  })

  test.each(MESSAGES)('%j reads back the same', async (value) => {
    const ours = join(dir, 'ours')
    const theirs = join(dir, 'theirs')
    await writeFile(ours, '')
    await writeFile(theirs, '')
    new GithubCommands(() => undefined, { GITHUB_OUTPUT: ours }).setOutput('payload', value)
    process.env.GITHUB_OUTPUT = theirs
    core.setOutput('payload', value)
    const read = async (file: string): Promise<Record<string, string>> =>
      parseOutputFile(await readFile(file, 'utf8'))
    expect(await read(ours)).toEqual(await read(theirs))
    expect((await read(ours)).payload).toBe(value)
  })
})
