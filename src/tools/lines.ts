import { StringDecoder } from 'node:string_decoder'

/** A child process's output stream, cut into lines as its chunks arrive. */
export interface LineSplitter {
  /** One chunk, as the pipe gave it; a function, to be handed to a stream as it is. */
  push: (chunk: Buffer) => void
  /**
   * The stream is over, or no longer read (a process that could not be ended keeps it open):
   * gives a last line that has no line break and returns the kept text. Chunks after it are
   * dropped, and a second call gives the same text and no line.
   */
  end: () => string
}

export interface SplitOptions {
  /** Each complete line, without its line break (`\n` or `\r\n`). */
  onLine?: (line: string) => void
  /** Keep the whole text for end() (the exec port returns it); '' otherwise. */
  keepText?: boolean
}

/**
 * A pipe cuts the output wherever it likes, in the middle of a UTF-8 character too: the decoder
 * holds back the first bytes of a character until the rest arrives, where decoding each chunk
 * alone would give two U+FFFD replacement characters.
 */
export function lineSplitter(options: SplitOptions): LineSplitter {
  const { onLine, keepText = false } = options
  const decoder = new StringDecoder('utf8')
  let text = ''
  let pending = ''
  let ended = false
  const take = (piece: string): void => {
    if (keepText) text += piece
    if (!onLine) return
    const lines = (pending + piece).split(/\r?\n/)
    pending = lines.pop() ?? ''
    for (const line of lines) onLine(line)
  }
  return {
    push: (chunk) => {
      if (!ended) take(decoder.write(chunk))
    },
    end: () => {
      if (ended) return text
      ended = true
      take(decoder.end())
      if (onLine && pending !== '') onLine(pending)
      pending = ''
      return text
    },
  }
}
