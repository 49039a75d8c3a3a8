import { describe, expect, test } from '@jest/globals'
import { lineSplitter } from '../../../src/tools/lines.js'

/** The lines and the text a splitter gives for these chunks. */
function split(chunks: Array<string | number[]>): { lines: string[]; text: string } {
  const lines: string[] = []
  const splitter = lineSplitter({ onLine: (line) => lines.push(line), keepText: true })
  for (const chunk of chunks)
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk))
  return { lines, text: splitter.end() }
}

describe('lineSplitter', () => {
  test('a two-byte character cut between two chunks is decoded whole', () => {
    // 'é' is C3 A9 in UTF-8: the pipe gave 'x' and its first byte, then the second byte.
    expect(
      split([
        [0x78, 0xc3],
        [0xa9, 0x0a],
      ]),
    ).toEqual({ lines: ['xé'], text: 'xé\n' })
  })

  test('a four-byte character cut over three chunks too, even at the very end', () => {
    const rocket = [...Buffer.from('🚀')]
    expect(split([rocket.slice(0, 1), rocket.slice(1, 3), rocket.slice(3)])).toEqual({
      lines: ['🚀'],
      text: '🚀',
    })
  })

  test('a stream that ends inside a character gives the replacement character, once', () => {
    expect(split([[0x61, 0xe2, 0x82]]).lines).toEqual(['a\uFFFD'])
  })

  test('lines end with \\n or \\r\\n, also when the \\r and the \\n come in two chunks', () => {
    expect(split(['one\r', '\ntwo\n\nthree']).lines).toEqual(['one', 'two', '', 'three'])
  })

  test('several lines in one chunk, and a line over several chunks', () => {
    expect(split(['a\nb\nc', 'c', 'c\n']).lines).toEqual(['a', 'b', 'ccc'])
  })

  test('without onLine, or without keepText, it keeps only what it is asked for', () => {
    const quiet = lineSplitter({ keepText: true })
    quiet.push(Buffer.from('kept\n'))
    expect(quiet.end()).toBe('kept\n')
    const lines: string[] = []
    const streaming = lineSplitter({ onLine: (line) => lines.push(line) })
    streaming.push(Buffer.from('shown\n'))
    expect([streaming.end(), lines]).toEqual(['', ['shown']])
  })

  test('after end, chunks are dropped and a second end gives the same text and no line', () => {
    const lines: string[] = []
    const splitter = lineSplitter({ onLine: (line) => lines.push(line), keepText: true })
    splitter.push(Buffer.from('kept\nlast'))
    expect(splitter.end()).toBe('kept\nlast')
    splitter.push(Buffer.from('late\n'))
    expect(splitter.end()).toBe('kept\nlast')
    expect(lines).toEqual(['kept', 'last'])
  })
})
