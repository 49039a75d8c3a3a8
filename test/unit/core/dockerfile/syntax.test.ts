import { describe, expect, test } from '@jest/globals'
import {
  DockerfileProblem,
  parseDockerfile,
  parseHeredoc,
} from '../../../../src/core/dockerfile/syntax.js'

/** Each instruction as `KEYWORD args…`, heredoc bodies after `|`. */
function read(text: string): string[] {
  return parseDockerfile(text).instructions.map(
    (i) =>
      [i.keyword, ...i.flags, ...i.args, ...(i.pairs ?? []).map((p) => p.join('='))].join(' ') +
      i.heredocs.map((doc) => ` |${doc.name}:${JSON.stringify(doc.content)}`).join(''),
  )
}

function problem(text: string): string {
  try {
    parseDockerfile(text)
  } catch (error) {
    if (error instanceof DockerfileProblem) return error.message
    throw error
  }
  return 'no problem'
}

describe("parseDockerfile: lines as BuildKit's parser reads them", () => {
  test('heredocs only in RUN, COPY and ADD, for words that start with <<', () => {
    expect(read('FROM x\nLABEL note=shift<<EOF\nCOPY a /a\n')).toEqual([
      'FROM x',
      'LABEL',
      'COPY a /a',
    ])
    expect(read('FROM x\nCOPY <<EOF /a\nCOPY b /b\nEOF\nCOPY c /c\n')).toEqual([
      'FROM x',
      'COPY <<EOF /a |EOF:"COPY b /b\\n"',
      'COPY c /c',
    ])
    // A file descriptor before << is a heredoc too; a quoted word is not.
    expect(read('FROM x\nRUN cat 0<<EOF\nCOPY b /b\nEOF\n')).toEqual([
      'FROM x',
      'RUN cat 0<<EOF |EOF:"COPY b /b\\n"',
    ])
    expect(problem('FROM x\nCOPY "<<EOF" /x\nEOF\n')).toBe('unknown instruction: EOF')
  })

  test('a heredoc name in quotes ends at the name without them; <<- ends at a tabbed name', () => {
    expect(read('FROM x\nRUN <<"E"OF\nbody\nEOF\n')).toEqual([
      'FROM x',
      'RUN <<"E"OF |EOF:"body\\n"',
    ])
    expect(read('FROM x\nRUN <<-EOF\n\tbody\n\tEOF\n')).toEqual([
      'FROM x',
      'RUN <<-EOF |EOF:"\\tbody\\n"',
    ])
    expect(parseHeredoc('<<E"O"F')).toEqual({
      name: 'EOF',
      content: '',
      expand: false,
      chomp: false,
    })
  })

  test('JSON forms have no heredoc; Go reads a JSON array and leaves what follows', () => {
    expect(read('FROM x\nRUN ["a"] <<EOF\nCOPY b /b\n')).toEqual(['FROM x', 'RUN a', 'COPY b /b'])
  })

  test('# escape=` makes the backtick the continuation; \\ is then text', () => {
    expect(read('# escape=`\nFROM x\nRUN echo \\\nCOPY a `\n  /a\n')).toEqual([
      'FROM x',
      'RUN echo \\',
      'COPY a /a',
    ])
  })

  test('directives count only at the very top, before any other line, each once', () => {
    expect(parseDockerfile('# foo=bar\n# escape=`\nFROM x\n').escape).toBe('\\')
    expect(parseDockerfile('\n# escape=`\nFROM x\n').escape).toBe('\\')
    expect(parseDockerfile('#   ESCAPE  =  `  \nFROM x\n').escape).toBe('`')
    expect(problem('# escape=`\n# escape=`\nFROM x\n')).toBe(
      'only one escape parser directive can be used',
    )
    expect(problem('# check=skip=all\n# escape=`\nFROM x\n')).toBe(
      "its 'escape' directive follows a 'check' directive, which BuildKit versions read differently",
    )
    expect(parseDockerfile('# syntax=docker/dockerfile:1.7 foo\nFROM x\n').syntax).toBe(
      'docker/dockerfile:1.7',
    )
  })

  test('continuations: comment and empty lines inside are skipped; an escaped escape does not continue', () => {
    expect(read('FROM x\nCOPY a \\\n  # note\n\n  b /c\n')).toEqual(['FROM x', 'COPY a b /c'])
    expect(read('FROM x\nLABEL a=b\\\\\nCOPY c /c\n')).toEqual(['FROM x', 'LABEL', 'COPY c /c'])
  })

  test('flags, ENV forms, CRLF line ends', () => {
    expect(
      read('FROM x\r\nCOPY --from=b --chown="a b" s /d\r\nENV A b c\r\nENV X=1 Y="2 3"\r\n'),
    ).toEqual(['FROM x', 'COPY --from=b --chown=a b s /d', 'ENV A=b c', 'ENV X=1 Y="2 3"'])
  })

  test('flags lose their quotes and honour every escape; arguments keep them for expansion', () => {
    expect(read(`FROM x\nCOPY --chown="a\\"b" --chmod='6\\'4' 'x\\y' "p q" /d\n`)).toEqual([
      'FROM x',
      `COPY --chown=a"b --chmod=6'4 'x\\y' "p q" /d`,
    ])
    // A lone `--` ends the flags: what follows is an argument, whatever it looks like.
    expect(read('FROM x\nCOPY --from=b -- --link /d\n')).toEqual([
      'FROM x',
      'COPY --from=b --link /d',
    ])
  })

  test('what BuildKit refuses', () => {
    expect(problem('FROM x\nFOO bar\n')).toBe('unknown instruction: FOO')
    expect(problem('# nothing\n')).toBe('file with no instructions')
    expect(problem('FROM x\nRUN <<EOF\nls\n')).toBe('unterminated heredoc')
    expect(problem('FROM x\nCOPY [1, "a"]\n')).toBe(
      'when using JSON array syntax, arrays must be comprised of strings only',
    )
  })
})
