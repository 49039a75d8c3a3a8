import { describe, expect, test } from '@jest/globals'
import type { SnapshotEntry } from '../../../../src/core/snapshot/config.js'
import type { GitTarget } from '../../../../src/core/snapshot/plan.js'
import {
  GitFailure,
  type FileChange,
  type GitWorktree,
  type RemoteRepo,
  type SnapshotPorts,
} from '../../../../src/core/snapshot/ports.js'
import { previewTarget, publishTarget } from '../../../../src/core/snapshot/publish.js'
import { recordingTools } from '../../../helpers/recording.js'
import { frozenClock, memoryFiles } from '../../../helpers/memory-files.js'

const REPO: RemoteRepo = {
  url: 'https://git.example.com/acme/cad.git',
  display: 'https://***@git.example.com/acme/cad.git',
  authorization: 'Basic eA==',
  secrets: [],
}

function entry(name: string, outputDir: string): SnapshotEntry {
  return {
    name,
    where: `res/snapshot-config.json [${name}]`,
    snapshooter: { name, rootTags: ['01850a59bb68c324907a'], outputDir },
    git: { repo: REPO, branch: 'main', commitMessage: 'Snapshot of {folder} at {date}' },
  }
}

const SALES = entry('sales', 'snapshot/sales')
const ORDERS = entry('orders', 'snapshot/orders')
const TARGET: GitTarget = { repo: REPO, branch: 'main', dir: '/clones/1', entries: [SALES, ORDERS] }

/**
 * A worktree whose staged changes and push outcomes are scripted, recording every call: the
 * publishing logic is tested without git.
 */
function scriptedWorktree(script: {
  changes: Record<string, FileChange[]>
  pushes: Array<'ok' | 'rejected' | 'refused'>
}): GitWorktree & { calls: string[] } {
  const calls: string[] = []
  let commits = 0
  let pushes = 0
  return {
    dir: '/clones/1',
    calls,
    stage: (path) => {
      calls.push(`stage ${path}`)
      return Promise.resolve(script.changes[path] ?? [])
    },
    commit: (message) => {
      calls.push(`commit ${message}`)
      return Promise.resolve(`${++commits}`.padStart(40, 'c'))
    },
    push: (branch) => {
      calls.push(`push ${branch}`)
      const outcome = script.pushes[pushes++] ?? 'ok'
      if (outcome === 'rejected')
        return Promise.reject(new GitFailure('rejected', '! [rejected] main -> main (fetch first)'))
      if (outcome === 'refused') return Promise.reject(new GitFailure('auth', 'remote: HTTP 403'))
      return Promise.resolve()
    },
    syncTo: (branch) => {
      calls.push(`sync ${branch}`)
      return Promise.resolve('f'.repeat(40))
    },
  }
}

type PublishPorts = Pick<SnapshotPorts, 'logger' | 'files' | 'clock' | 'random'>

/** The ports publishing uses, recording the log, the waits and the folders laid over the clone. */
function tools(): PublishPorts & {
  lines: string[]
  clock: ReturnType<typeof frozenClock>
  replaced: string[]
} {
  const replaced: string[] = []
  const { logger, lines } = recordingTools()
  return {
    logger,
    lines,
    files: {
      ...memoryFiles({}),
      replaceDir: (from, to) => {
        replaced.push(`${from} -> ${to}`)
        return Promise.resolve()
      },
    },
    clock: frozenClock('2026-03-04T05:06:07Z'),
    random: () => 0.5,
    replaced,
  }
}

const DATE = new Date(2026, 2, 4, 5, 6, 7)
const SAVED = new Map([
  [SALES, '/tmp/exports/1'],
  [ORDERS, '/tmp/exports/2'],
])
const options = (attempts = 3): Parameters<typeof publishTarget>[2] => ({
  attempts,
  date: DATE,
  saved: SAVED,
})
const added = (path: string): FileChange => ({ kind: 'added', path })

describe('publishing a clone', () => {
  test('each changed entry is one commit, and the clone is pushed once', async () => {
    const worktree = scriptedWorktree({
      changes: { 'snapshot/sales': [added('snapshot/sales/a.json')] },
      pushes: ['ok'],
    })
    const t = tools()
    const results = await publishTarget(TARGET, worktree, options(), t)
    expect(worktree.calls).toEqual([
      'stage snapshot/sales',
      'commit Snapshot of snapshot/sales at 2026.03.04 05:06:07',
      'stage snapshot/orders',
      'push main',
    ])
    expect(results.map((r) => [r.entry.name, r.status, r.attempts])).toEqual([
      ['sales', 'pushed', 1],
      ['orders', 'unchanged', 1],
    ])
    expect(t.lines).toContain("'orders': no change in snapshot/orders.")
  })

  test('nothing changed: no commit, no push', async () => {
    const worktree = scriptedWorktree({ changes: {}, pushes: [] })
    const t = tools()
    const results = await publishTarget(TARGET, worktree, options(), t)
    expect(worktree.calls).toEqual(['stage snapshot/sales', 'stage snapshot/orders'])
    expect(results.every((r) => r.status === 'unchanged')).toBe(true)
    expect(t.lines).toContain(
      "Nothing changed in https://***@git.example.com/acme/cad.git (branch 'main'): nothing to push.",
    )
  })

  test('a push that lost a race: reset onto the new tip, re-apply every export, commit and push again', async () => {
    const worktree = scriptedWorktree({
      changes: { 'snapshot/sales': [added('snapshot/sales/a.json')] },
      pushes: ['rejected', 'ok'],
    })
    const t = tools()
    const results = await publishTarget(TARGET, worktree, options(), t)
    expect(worktree.calls.filter((call) => /^(push|sync)/.test(call))).toEqual([
      'push main',
      'sync main',
      'push main',
    ])
    expect(t.replaced).toEqual([
      '/tmp/exports/1 -> /clones/1/snapshot/sales',
      '/tmp/exports/2 -> /clones/1/snapshot/orders',
    ])
    expect(t.clock.sleeps).toEqual([650])
    expect(results[0]?.attempts).toBe(2)
    expect(t.lines.join('\n')).toContain(
      "Push 1 of 3 to https://***@git.example.com/acme/cad.git (branch 'main') was rejected: someone pushed meanwhile. Fetching, re-applying the snapshot and trying again (never a force push).",
    )
  })

  test('rejected every time: gives up, says never force-pushed and what to do', async () => {
    const worktree = scriptedWorktree({
      changes: { 'snapshot/sales': [added('snapshot/sales/a.json')] },
      pushes: ['rejected', 'rejected'],
    })
    const error = await publishTarget(TARGET, worktree, options(2), tools()).catch(
      (failure: unknown) => failure as Error,
    )
    expect((error as Error).message).toMatch(
      /^Pushing to https:\/\/\*\*\*@git\.example\.com\/acme\/cad\.git \(branch 'main'\) was rejected 2 time\(s\): other pushes kept landing first\. Nothing was force-pushed\. Run the snapshot again, or raise 'push-attempts'\./,
    )
  })

  test('a refused push is not retried: the credentials are named', async () => {
    const worktree = scriptedWorktree({
      changes: { 'snapshot/sales': [added('snapshot/sales/a.json')] },
      pushes: ['refused'],
    })
    const error = await publishTarget(TARGET, worktree, options(), tools()).catch(
      (failure: unknown) => failure as Error,
    )
    expect(worktree.calls.filter((call) => call.startsWith('push'))).toHaveLength(1)
    expect((error as Error).message).toContain(
      "Pushing to https://***@git.example.com/acme/cad.git (branch 'main') failed: the server refused the credentials.",
    )
  })
})

describe('a dry run', () => {
  test('says what each entry would commit, and commits nothing', async () => {
    const worktree = scriptedWorktree({
      changes: { 'snapshot/orders': [added('snapshot/orders/x.json')] },
      pushes: [],
    })
    const t = tools()
    const results = await previewTarget(TARGET, worktree, t)
    expect(worktree.calls).toEqual(['stage snapshot/sales', 'stage snapshot/orders'])
    expect(results.map((r) => r.status)).toEqual(['unchanged', 'would-commit'])
    expect(t.lines).toContain(
      "'orders' (snapshot/orders in https://***@git.example.com/acme/cad.git (branch 'main')): would commit 1 added, 0 modified, 0 deleted",
    )
  })
})
