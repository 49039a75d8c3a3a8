import { describe, expect, test } from '@jest/globals'
import { readIgnoreFile } from '../../../../src/core/dockerfile/dockerignore.js'

/** Whether each path is left out by the ignore file's text (folders matched first). */
function ignored(text: string, paths: string[]): Record<string, boolean> {
  const rules = readIgnoreFile(text)
  if (!('matcher' in rules)) throw new Error(JSON.stringify(rules))
  return Object.fromEntries(paths.map((path) => [path, rules.matcher.ignores(path)]))
}

describe('readIgnoreFile: moby/patternmatcher, as BuildKit applies it', () => {
  test('a name leaves out that path and everything below it', () => {
    expect(ignored('dist\n', ['dist', 'dist/web/a.js', 'distx', 'a/dist'])).toEqual({
      dist: true,
      'dist/web/a.js': true,
      distx: false,
      'a/dist': false,
    })
  })

  test('* and ? stay within one path segment; ** crosses them', () => {
    expect(
      ignored('*.txt\na/?.js\n**/deep\n', [
        'x.txt',
        'a/x.txt',
        'a/b.js',
        'a/bc.js',
        'x/y/deep',
        'deep',
      ]),
    ).toEqual({
      'x.txt': true,
      'a/x.txt': false,
      'a/b.js': true,
      'a/bc.js': false,
      'x/y/deep': true,
      deep: true,
    })
  })

  test('the last matching pattern decides: ! brings a path back', () => {
    expect(ignored('a\n!a/keep.txt\n', ['a/x', 'a/keep.txt'])).toEqual({
      'a/x': true,
      'a/keep.txt': false,
    })
    expect(ignored('!a/keep.txt\na\n', ['a/keep.txt'])).toEqual({ 'a/keep.txt': true })
  })

  test('a leading /, ./ and spaces around a pattern are dropped; comments are skipped', () => {
    expect(ignored('/a/c \n  ./b\n# a\n #c\n', ['a/c/y.js', 'b', 'a', '#c'])).toEqual({
      'a/c/y.js': true,
      b: true,
      a: false,
      '#c': true,
    })
  })

  test('"**" alone leaves out everything; a pattern ending in ** its folder\'s content', () => {
    expect(ignored('**\n', ['a', 'a/b/c'])).toEqual({ a: true, 'a/b/c': true })
    expect(ignored('a/**\n', ['a/b', 'ab'])).toEqual({ 'a/b': true, ab: false })
  })

  test('regular expression characters are literal', () => {
    expect(ignored('a.b+(c)\n', ['a.b+(c)', 'aXb+(c)'])).toEqual({
      'a.b+(c)': true,
      'aXb+(c)': false,
    })
  })

  test('"!" alone: BuildKit refuses the file; classes and escapes: the file is not applied', () => {
    expect(readIgnoreFile('!\n')).toEqual({ invalid: 'illegal exclusion pattern: "!"' })
    expect(readIgnoreFile('[a-z].js\n')).toEqual({
      notApplied:
        "its pattern '[a-z].js' has a character class or an escape, which this step does not match",
    })
  })
})
