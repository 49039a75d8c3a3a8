import { describe, expect, test } from '@jest/globals'
import { descendantsIn, type ProcessEntry } from '../../../src/tools/process-tree.js'

const entry = (pid: number, ppid: number, state = 'S'): ProcessEntry => ({
  pid,
  ppid,
  pgrp: pid,
  state,
  start: '',
  name: `p${pid}`,
})

describe('descendantsIn', () => {
  const all = [
    entry(1, 0),
    entry(10, 1),
    entry(11, 10),
    entry(12, 11, 'Z'),
    entry(20, 1),
    entry(30, 99),
  ]

  test("what the roots started and what that started, parents first, each once, the roots' own parents not", () => {
    expect(descendantsIn(all, [10]).map((each) => each.pid)).toEqual([11, 12])
    expect(descendantsIn(all, [10, 11, 1]).map((each) => each.pid)).toEqual([11, 12, 10, 20])
    expect(descendantsIn(all, [42])).toEqual([])
  })
})
