// Self-check for the test git server and the fake toolkit: `npx tsx test/helpers/git-server.check.ts`.
// Prints each step with its duration, plus the git messages our snapshot code must recognise.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Cleanup } from './cleanup.js'
import { checkFakeToolkit } from './fake-toolkit.checks.js'
import { basicAuth, git, runGit, startGitServer } from './git-server.js'
import type { GitResult } from './git-server.js'

const TOKEN = `tok_${randomBytes(12).toString('hex')}`

const cleanup = new Cleanup()
const work = await cleanup.tempDir('git-server-check-')
await mkdir(path.join(work, 'home'))
// A hermetic client: no system/global config, no prompts, so a missing credential fails fast.
const clientEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: path.join(work, 'home'),
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Check Bot',
  GIT_AUTHOR_EMAIL: 'check-bot@example.test',
  GIT_COMMITTER_NAME: 'Check Bot',
  GIT_COMMITTER_EMAIL: 'check-bot@example.test',
}
const gitIn = (cwd: string, args: string[]): Promise<string> => git(args, { cwd, env: clientEnv })
const tryGitIn = (cwd: string, args: string[]): Promise<GitResult> =>
  runGit(args, { cwd, env: clientEnv })
const observed: Record<string, string> = {}
const timings: Array<[string, number]> = []

async function step(name: string, fn: () => Promise<void>): Promise<void> {
  const started = performance.now()
  await fn()
  const ms = Math.round(performance.now() - started)
  timings.push([name, ms])
  console.log(`ok  ${name} (${ms} ms)`)
}

function assertFailed(result: GitResult, pattern: RegExp, what: string): void {
  assert.notEqual(result.code, 0, `${what} should fail`)
  assert.match(result.stderr, pattern, `${what}: unexpected stderr ${result.stderr}`)
}

async function commitFile(
  clone: string,
  file: string,
  content: string | Buffer,
  subject: string,
): Promise<void> {
  await mkdir(path.dirname(path.join(clone, file)), { recursive: true })
  await writeFile(path.join(clone, file), content)
  await gitIn(clone, ['add', '--', file])
  await gitIn(clone, ['commit', '--quiet', '-m', subject])
}

// The loop the snapshot action needs: a rejected push means someone else won; rebase and retry.
async function pushWithRetry(clone: string, branch: string): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const push = await tryGitIn(clone, ['push', 'origin', `HEAD:refs/heads/${branch}`])
    if (push.code === 0) return attempt
    if (!/\[rejected\]|failed to push/.test(push.stderr)) throw new Error(push.stderr)
    const reason = /\] .*\((.+)\)$/m.exec(push.stderr)?.[1] ?? 'unknown'
    observed[`concurrentRejection (${reason})`] ??= push.stderr
    await gitIn(clone, ['pull', '--rebase', '--quiet', 'origin', branch])
  }
  throw new Error(`push from ${clone} still rejected after 20 attempts`)
}

const server = cleanup.track('git server', await startGitServer({ token: TOKEN }))
const cloneDir = (name: string): string => path.join(work, name)
/** A shallow clone (depth 1) of team/app. */
const shallowClone = (name: string): Promise<string> =>
  gitIn(work, ['clone', '--quiet', '--depth', '1', server.urlFor('team/app'), cloneDir(name)])
try {
  await step('createRepo with 3 commits', async () => {
    await server.createRepo('team/app', { files: { 'README.md': '# app\n' }, commits: 3 })
    assert.equal((await server.log('team/app', 'main')).length, 3)
  })

  await step('clone with token as URL username', async () => {
    const before = server.requests.length
    await gitIn(work, ['clone', '--quiet', server.urlFor('team/app'), cloneDir('a')])
    assert.equal(await readFile(path.join(cloneDir('a'), 'README.md'), 'utf8'), '# app\n')
    const statuses = server.requests
      .slice(before)
      .map((r) => `${r.status}${r.authorized ? '' : '!'}`)
    observed.tokenInUrlRequests = statuses.join(' ')
    // git keeps the credential-bearing URL in the clone's config: never upload .git as an artifact.
    const remote = await gitIn(cloneDir('a'), ['remote', 'get-url', 'origin'])
    assert.ok(remote.includes(TOKEN), 'git stores the token-bearing remote URL')
  })

  await step('wrong token and no token get 401', async () => {
    const tryClone = (url: string, extra: string[] = []): Promise<GitResult> =>
      tryGitIn(work, [...extra, 'clone', url, cloneDir(`denied-${randomBytes(4).toString('hex')}`)])
    // A wrong token in the user part makes git ask for a password, which CI cannot answer.
    const wrongUser = await tryClone(server.urlFor('team/app', 'wrong-token'))
    assertFailed(wrongUser, /could not read Password|Authentication failed/, 'wrong token as user')
    observed.wrongTokenAsUser = wrongUser.stderr
    // The password prompt names the URL with its user part, so the (wrong) token leaks to stderr.
    assert.ok(wrongUser.stderr.includes('wrong-token'), 'git prompt message shows the user part')
    const wrongPasswordUrl = server.baseUrl.replace('//', '//x-access-token:wrong-token@')
    const wrongPassword = await tryClone(`${wrongPasswordUrl}/team/app.git`)
    assertFailed(wrongPassword, /Authentication failed/, 'wrong token as password')
    observed.wrongTokenAsPassword = wrongPassword.stderr
    assert.ok(!wrongPassword.stderr.includes('wrong-token'), 'git strips credentials here')
    const badHeader = `http.extraheader=Authorization: ${basicAuth('x-access-token', 'wrong-token')}`
    const wrongHeader = await tryClone(server.urlFor('team/app', ''), ['-c', badHeader])
    assertFailed(wrongHeader, /could not read Username|Authentication failed/, 'wrong extraheader')
    observed.wrongTokenInHeader = wrongHeader.stderr
    const none = await tryClone(server.urlFor('team/app', ''))
    assertFailed(none, /could not read Username|Authentication failed/, 'clone without token')
    observed.noToken = none.stderr
    assert.ok(server.requests.some((r) => r.status === 401 && !r.authorized))
  })

  await step('push shows in log', async () => {
    await commitFile(cloneDir('a'), 'notes.txt', 'hello\n', 'Add notes')
    const push = await tryGitIn(cloneDir('a'), ['push', 'origin', 'main'])
    assert.equal(push.code, 0, push.stderr)
    observed.pushStderr = push.stderr
    assert.ok(!push.stderr.includes(TOKEN), 'push output shows the URL without credentials')
    const [tip] = await server.log('team/app', 'main')
    assert.equal(tip?.subject, 'Add notes')
    assert.equal(tip.authorName, 'Check Bot')
    assert.deepEqual(await server.files('team/app', 'main', 'notes.txt'), {
      'notes.txt': 'hello\n',
    })
  })

  await step('stale clone push is rejected as non-fast-forward', async () => {
    await shallowClone('b')
    await commitFile(cloneDir('a'), 'notes.txt', 'hello again\n', 'Update notes')
    await gitIn(cloneDir('a'), ['push', '--quiet', 'origin', 'main'])
    await commitFile(cloneDir('b'), 'other.txt', 'b\n', 'Add other')
    const push = await tryGitIn(cloneDir('b'), ['push', 'origin', 'main'])
    assertFailed(push, /\[rejected\].*\(fetch first\)/, 'stale push')
    observed.staleRejected = push.stderr
    await gitIn(cloneDir('b'), ['fetch', '--quiet', 'origin', 'main'])
    const afterFetch = await tryGitIn(cloneDir('b'), ['push', 'origin', 'main'])
    assertFailed(afterFetch, /\[rejected\].*\(non-fast-forward\)/, 'diverged push')
    observed.divergedRejected = afterFetch.stderr
  })

  await step('3 concurrent pushers with fetch+rebase+retry, no force push', async () => {
    const workers = ['w1', 'w2', 'w3']
    for (const w of workers) {
      await shallowClone(w)
    }
    const retries = await Promise.all(
      workers.map(async (w) => {
        let total = 0
        for (let i = 1; i <= 3; i++) {
          await commitFile(cloneDir(w), `${w}/${i}.txt`, `${w} ${i}\n`, `${w} commit ${i}`)
          total += await pushWithRetry(cloneDir(w), 'main')
        }
        return total
      }),
    )
    observed.concurrentRetries = retries.join(',')
    const subjects = (await server.log('team/app', 'main')).map((c) => c.subject)
    for (const w of workers)
      for (let i = 1; i <= 3; i++) assert.ok(subjects.includes(`${w} commit ${i}`))
    assert.equal(server.forcePushes('team/app'), 0)
    assert.ok(server.refUpdates('team/app').every((u) => u.kind === 'fast-forward'))
  })

  await step('force push is detected', async () => {
    await server.createRepo('team/forced', { commits: 2 })
    await gitIn(work, ['clone', '--quiet', server.urlFor('team/forced'), cloneDir('f')])
    await gitIn(cloneDir('f'), ['reset', '--quiet', '--hard', 'HEAD~1'])
    await commitFile(cloneDir('f'), 'rewrite.txt', 'x\n', 'Rewrite history')
    await gitIn(cloneDir('f'), ['push', '--quiet', '--force', 'origin', 'main'])
    assert.equal(server.forcePushes('team/forced'), 1)
    assert.equal(server.forcePushes('team/app'), 0)
  })

  await step('ls-remote --heads', async () => {
    const out = await gitIn(work, ['ls-remote', '--heads', server.urlFor('team/app')])
    assert.match(out, /^[0-9a-f]{40}\trefs\/heads\/main$/m)
  })

  await step('clone with http.extraheader and a token-free URL', async () => {
    const before = server.requests.length
    const header = `http.extraheader=Authorization: ${basicAuth('x-access-token', TOKEN)}`
    const url = server.urlFor('team/app', '')
    await gitIn(work, ['-c', header, 'clone', '--quiet', url, cloneDir('h')])
    assert.ok(server.requests.slice(before).every((r) => r.authorized))
    const remote = await gitIn(cloneDir('h'), ['remote', 'get-url', 'origin'])
    assert.equal(remote.trim(), url, 'extraheader keeps the token out of .git/config')
  })

  await step('gzip-encoded request body (fetch negotiation with many haves)', async () => {
    for (let i = 0; i < 40; i++)
      await gitIn(cloneDir('h'), ['commit', '--quiet', '--allow-empty', '-m', `local ${i}`])
    await commitFile(cloneDir('a'), 'notes.txt', 'third\n', 'Third notes')
    await gitIn(cloneDir('a'), ['pull', '--rebase', '--quiet', 'origin', 'main'])
    await gitIn(cloneDir('a'), ['push', '--quiet', 'origin', 'main'])
    // Without the remote-tracking ref the client cannot name a common commit early, so it sends
    // rounds of `have` lines; git gzips any fetch request body above 1 KiB.
    await gitIn(cloneDir('h'), ['update-ref', '-d', 'refs/remotes/origin/main'])
    const before = server.requests.length
    const header = `http.extraheader=Authorization: ${basicAuth('x-access-token', TOKEN)}`
    await gitIn(cloneDir('h'), ['-c', header, 'fetch', '--quiet', 'origin'])
    const gzipped = server.requests.slice(before).filter((r) => r.gzip)
    assert.ok(gzipped.length > 0, 'expected at least one gzip request')
    assert.ok(gzipped.every((r) => r.status === 200))
  })

  await step('push larger than http.postBuffer (chunked upload)', async () => {
    const before = server.requests.length
    await commitFile(cloneDir('a'), 'big.bin', randomBytes(3 * 1024 * 1024), 'Add big file')
    await gitIn(cloneDir('a'), ['pull', '--rebase', '--quiet', 'origin', 'main'])
    await gitIn(cloneDir('a'), ['push', '--quiet', 'origin', 'main'])
    assert.ok(server.requests.slice(before).some((r) => r.chunked && r.status === 200))
    assert.equal((await server.log('team/app', 'main'))[0]?.subject, 'Add big file')
  })

  await step('createLargeHistoryRepo 5000 commits, 3 x 2 MiB files in history', async () => {
    const bare = await server.createLargeHistoryRepo('big', {
      commits: 5000,
      largeFileBytes: 2 << 20,
    })
    assert.equal((await server.log('big', 'main')).length, 5000)
    const count = await git(['count-objects', '-v'], { cwd: bare })
    observed.largeRepo = count.split('\n').find((l) => l.startsWith('size-pack')) ?? ''
    assert.deepEqual(Object.keys(await server.files('big', 'main')).sort(), [
      'README.md',
      'history.log',
    ])
  })

  await step('shallow clone of the large-history repo', async () => {
    await gitIn(work, ['clone', '--quiet', '--depth', '1', server.urlFor('big'), cloneDir('big')])
  })

  await checkFakeToolkit({ step, server, work, gitIn })
} finally {
  await cleanup.run()
}

console.log('\nObserved git output (for the snapshot action):')
for (const [key, value] of Object.entries(observed)) console.log(`--- ${key}\n${value.trimEnd()}`)
console.log(`\nTotal ${timings.reduce((sum, [, ms]) => sum + ms, 0)} ms`)
