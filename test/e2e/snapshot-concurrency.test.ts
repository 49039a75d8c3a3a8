import { expect, test } from '@jest/globals'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { DRAW_PASSWORD, IDS, PLATFORM_STATE, TOOLKIT_COMMAND } from '../helpers/fake-toolkit.js'
import { git, type GitServer } from '../helpers/git-server.js'
import { gitServerForSuite, makeWorkspace, scratch } from '../helpers/git-snapshot.js'
import { runAsGithub } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const TOKEN = 'glpat-concurrent-7e3a9c1f'
let server: GitServer
gitServerForSuite(TOKEN, (started) => (server = started))

test('three snapshot runs started at once on one branch all land, one after the other, never forced', async () => {
  const repo = 'acme/shared-branch'
  const bare = await server.createRepo(repo)
  const barrier = path.join(await scratch.tempDir('barrier-'), 'arrived')
  // Each run snapshots its own project, so every run has something of its own to commit.
  const projects = [
    ['sales', IDS.sales],
    ['shared', IDS.shared],
    ['home', IDS.home],
  ] as const
  const runs = await Promise.all(
    projects.map(async ([name, rootTag]) => {
      const workspace = await makeWorkspace([
        {
          snapshooter: { name, rootTags: [rootTag], outputDir: `snapshot/${name}` },
          git: {
            repo: server.urlFor(repo),
            branch: 'main',
            commitMessage: `Snapshot ${name} at {date}`,
          },
        },
      ])
      const run = await runAsGithub('snapshot', {
        cwd: workspace,
        inputs: { 'toolkit-command': TOOLKIT_COMMAND, 'draw-password': DRAW_PASSWORD },
        // The three toolkits wait for each other: every run has cloned the same tip, so all
        // three race to push it and two must retry.
        env: { FAKE_PLATFORM_STATE: PLATFORM_STATE, FAKE_TOOLKIT_BARRIER: `${barrier}:3` },
      })
      await rm(workspace, { recursive: true, force: true })
      return run
    }),
  )

  for (const run of runs) {
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.outputs.changed).toBe('true')
    expectNoSecrets({ stdout: run.stdout, ...run.files }, [TOKEN, DRAW_PASSWORD])
  }
  // All three pushed from the same tip: the first won, the others retried on top of it.
  const retried = runs.filter((run) =>
    run.stdout.includes('was rejected: someone pushed meanwhile'),
  )
  expect(retried.length).toBeGreaterThanOrEqual(2)

  const log = await server.log(repo, 'main')
  expect(log).toHaveLength(4)
  expect(
    log
      .slice(0, 3)
      .map((c) => c.subject.replace(/ at .*/, ''))
      .sort(),
  ).toEqual(['Snapshot home', 'Snapshot sales', 'Snapshot shared'])
  // One after the other: a single line of history, each commit the parent of the next.
  const parents = await git(['rev-list', '--parents', 'main'], { cwd: bare })
  expect(
    parents
      .trim()
      .split('\n')
      .map((line) => line.split(' ').length),
  ).toEqual([2, 2, 2, 1])
  expect(server.refUpdates(repo).map((u) => u.kind)).toEqual([
    'fast-forward',
    'fast-forward',
    'fast-forward',
  ])
  expect(server.forcePushes(repo)).toBe(0)
  const files = Object.keys(await server.files(repo, 'main', 'snapshot'))
  for (const [name, rootTag] of projects)
    expect(files).toContain(`snapshot/${name}/${rootTag}/${rootTag}.json`)
})
