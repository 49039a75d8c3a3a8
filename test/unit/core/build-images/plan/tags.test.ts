import { describe, expect, test } from '@jest/globals'
import {
  renderTag,
  sanitiseBranch,
  templateProblem,
  type TagFacts,
} from '../../../../../src/core/build-images/plan/tags.js'
import { isValidTag } from '../../../../../src/core/shared/image-ref.js'

const SHA = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
const facts: TagFacts = {
  branch: 'main',
  sha: SHA,
  runId: '987654',
  date: new Date('2026-03-09T23:59:00Z'),
}

describe('sanitiseBranch', () => {
  test.each([
    ['main', 'main'],
    ['feature/x', 'feature-x'],
    ['Feature/JIRA-12_fix', 'feature-jira-12_fix'],
    ['feature//x', 'feature-x'],
    ['renovate/@types/node-20.x', 'renovate-types-node-20.x'],
    ['.hidden', 'hidden'],
    ['-dash', 'dash'],
    ['--/..x', 'x'],
    ['trailing/', 'trailing'],
    ['dots...', 'dots'],
    ['ünïcode-bräñch', 'n-code-br-ch'],
    ['release/1.2', 'release-1.2'],
    ['UPPER', 'upper'],
    ['///', 'branch'],
    ['a'.repeat(300), 'a'.repeat(128)],
  ])('%j → %j', (branch, expected) => {
    const tag = sanitiseBranch(branch)
    expect(tag).toBe(expected)
    expect(isValidTag(tag)).toBe(true)
  })
})

describe('renderTag', () => {
  test.each([
    ['{branch}-{short-sha}', facts, 'main-1a2b3c4'],
    ['{branch}-{short-sha}', { ...facts, branch: 'feature/Login' }, 'feature-login-1a2b3c4'],
    ['{sha}', facts, SHA],
    ['{sha}', { ...facts, sha: SHA.toUpperCase() }, SHA],
    ['build-{run-id}', facts, 'build-987654'],
    ['{date}.{run-id}', facts, '20260309.987654'],
    ['v1.2.3', facts, 'v1.2.3'],
    ['latest', facts, 'latest'],
    ['{branch}_{branch}', { ...facts, branch: 'x/y' }, 'x-y_x-y'],
  ])('%j gives %j', (template, given, expected) => {
    expect(renderTag(template, given)).toEqual({ tag: expected })
  })

  test('a long branch is cut so that the tag fits in 128 characters, commit kept whole', () => {
    const rendered = renderTag('{branch}-{short-sha}', { ...facts, branch: `f/${'b'.repeat(200)}` })
    expect(rendered).toEqual({ tag: `f-${'b'.repeat(118)}-1a2b3c4` })
    expect('tag' in rendered && rendered.tag.length).toBe(128)
  })

  test('a cut that ends on a separator drops it', () => {
    const branch = `${'a'.repeat(119)}-b`
    const rendered = renderTag('{branch}-{short-sha}', { ...facts, branch })
    expect(rendered).toEqual({ tag: `${'a'.repeat(119)}-1a2b3c4` })
  })

  test.each([
    ['{short-sha}', { ...facts, sha: undefined }, 'short-sha'],
    ['{sha}', { ...facts, sha: undefined }, 'sha'],
    ['{run-id}', { ...facts, runId: undefined }, 'run-id'],
    ['{branch}', { ...facts, branch: undefined }, 'branch'],
  ])('%j without the fact it needs names it', (template, given, missing) => {
    expect(renderTag(template, given)).toEqual({ missing })
  })

  test('a run id that makes the tag too long is reported as invalid', () => {
    const rendered = renderTag(`${'x'.repeat(120)}-{run-id}`, { ...facts, runId: '123456789' })
    expect(rendered).toEqual({ invalid: `${'x'.repeat(120)}-123456789` })
  })
})

describe('templateProblem', () => {
  test.each(['{branch}-{short-sha}', 'latest', '{date}', 'v{run-id}', '{sha}', 'a_b.c-d'])(
    '%j is accepted',
    (template) => {
      expect(templateProblem(template)).toBeUndefined()
    },
  )

  test.each([
    ['', 'is empty'],
    ['{commit}', "unknown placeholder '{commit}'"],
    ['{Branch}', "unknown placeholder '{Branch}'"],
    ['{branch', "unmatched '{'"],
    ['x}', "unmatched '{' or '}'"],
    ['-{branch}', 'does not give a valid tag'],
    ['.x', 'does not give a valid tag'],
    ['{branch}:latest', 'does not give a valid tag'],
    ['a b', 'does not give a valid tag'],
    ['x'.repeat(129), 'does not give a valid tag'],
  ])('%j: %s', (template, problem) => {
    expect(templateProblem(template)).toContain(problem)
  })
})
