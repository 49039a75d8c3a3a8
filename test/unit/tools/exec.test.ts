import { describe, expect, test } from '@jest/globals'
import { exec } from '../../../src/tools/exec.js'

/**
 * A child that writes 'x' and the first byte of 'é', waits, then the second byte: the pipe gives
 * the two writes as two chunks.
 */
const CUT_CHARACTER = [
  'process.stdout.write(Buffer.from([0x78, 0xc3]))',
  'setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x0a])), 200)',
].join(';')

describe('exec', () => {
  test('a character the pipe cut in two is printed whole, and returned whole', async () => {
    const lines: string[] = []
    const result = await exec(process.execPath, ['-e', CUT_CHARACTER], {
      onLine: (line) => lines.push(line),
    })
    expect(lines).toEqual(['xé'])
    expect(result).toEqual({ code: 0, stdout: 'xé\n', stderr: '' })
  })

  test('lines from both streams, the last without a line break, and the exit code', async () => {
    const lines: string[] = []
    const result = await exec('sh', ['-c', 'echo out; echo err >&2; printf last; exit 3'], {
      onLine: (line, stream) => lines.push(`${stream}: ${line}`),
    })
    expect(result.code).toBe(3)
    expect(lines.sort()).toEqual(['stderr: err', 'stdout: last', 'stdout: out'])
    expect([result.stdout, result.stderr]).toEqual(['out\nlast', 'err\n'])
  })
})
