import { describe, expect, test } from '@jest/globals'
import { isProblem } from '../../../../src/core/shared/problem.js'
import {
  classifyGitMessage,
  cleanGitMessage,
  stripUrlCredentials,
} from '../../../../src/core/snapshot/git-errors.js'
import { parseRepoUrl } from '../../../../src/core/snapshot/repo-url.js'
import { credentialsInText } from '../../../../src/core/shared/url-credentials.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const b64 = (text: string): string => Buffer.from(text).toString('base64')

describe('git.repo URL handling', () => {
  test.each<[string, string, { url: string; display: string; basic: string; secrets: string[] }]>([
    [
      'token as the user part',
      'https://ghp_abc123def456@github.com/acme/cad.git',
      {
        url: 'https://github.com/acme/cad.git',
        display: 'https://***@github.com/acme/cad.git',
        basic: 'ghp_abc123def456:',
        secrets: ['ghp_abc123def456', b64('ghp_abc123def456:')],
      },
    ],
    [
      'user and token (GitLab style)',
      'https://gitlab-token:glpat-XyZ987@gitlab.example.com/group/sub/cad.git',
      {
        url: 'https://gitlab.example.com/group/sub/cad.git',
        display: 'https://***@gitlab.example.com/group/sub/cad.git',
        basic: 'gitlab-token:glpat-XyZ987',
        secrets: ['glpat-XyZ987', b64('gitlab-token:glpat-XyZ987')],
      },
    ],
    [
      'percent-encoded token: decoded for the header, both forms secret',
      'https://oauth2:a%2Fb%40c@host.example/x.git',
      {
        url: 'https://host.example/x.git',
        display: 'https://***@host.example/x.git',
        basic: 'oauth2:a/b@c',
        secrets: ['a/b@c', 'a%2Fb%40c', b64('oauth2:a/b@c')],
      },
    ],
    [
      'plain http to loopback (tests, local mirrors)',
      'http://tok12345@127.0.0.1:8080/team/app.git',
      {
        url: 'http://127.0.0.1:8080/team/app.git',
        display: 'http://***@127.0.0.1:8080/team/app.git',
        basic: 'tok12345:',
        secrets: ['tok12345', b64('tok12345:')],
      },
    ],
  ])('%s', (_name, raw, expected) => {
    const parsed = parseRepoUrl(raw)
    if (isProblem(parsed)) throw new Error(parsed.problem)
    expect(parsed.url).toBe(expected.url)
    expect(parsed.display).toBe(expected.display)
    expect(parsed.authorization).toBe(`Basic ${b64(expected.basic)}`)
    expect(parsed.secrets).toEqual(expect.arrayContaining(expected.secrets))
    expect(parsed.secrets).not.toContain('oauth2')
    expect(parsed.secrets).not.toContain('gitlab-token')
  })

  test.each<[string, string, string]>([
    ['no token', 'https://github.com/acme/cad.git', 'carries no token'],
    [
      'plain http elsewhere',
      'http://t0ken@git.example.com/a.git',
      'plain http:// would send the token in clear',
    ],
    ['ssh', 'ssh://git@github.com/acme/cad.git', "the scheme 'ssh' is not supported"],
    ['not a URL', 'git@github.com:acme/cad.git', 'is not a URL'],
    ['no path', 'https://t0ken@github.com/', 'names no repository path'],
    ['query string', 'https://t0ken@github.com/a.git?x=1', 'query or fragment'],
  ])('refuses %s', (_name, raw, expected) => {
    const parsed = parseRepoUrl(raw)
    expect(isProblem(parsed) && parsed.problem).toContain(expected)
    expect(JSON.stringify(parsed)).not.toContain('t0ken')
  })

  // '#', '?' and '\\' end the user part for a URL parser, '%' starts an escape, '@' ends it.
  const HOSTILE = 'Zq9#Xw?7\\Kp%Vb@Mn'

  /** No 4 characters in a row of the token, in any case, appear in the text. */
  const expectNoPart = (text: string, token = HOSTILE): void => {
    const lower = text.toLowerCase()
    for (let at = 0; at + 4 <= token.length; at++)
      expect(lower).not.toContain(token.slice(at, at + 4).toLowerCase())
  }

  test('a token holding # ? \\ % @ is taken out whole, before any URL parsing', () => {
    const parsed = parseRepoUrl(`https://oauth2:${HOSTILE}@git.example.com/acme/cad.git`)
    if (isProblem(parsed)) throw new Error(parsed.problem)
    expect(parsed.url).toBe('https://git.example.com/acme/cad.git')
    expect(parsed.display).toBe('https://***@git.example.com/acme/cad.git')
    expect(parsed.authorization).toBe(`Basic ${b64(`oauth2:${HOSTILE}`)}`)
    expect(parsed.secrets).toContain(HOSTILE)
    const alone = parseRepoUrl(`https://${HOSTILE}@git.example.com/acme/cad.git`)
    if (isProblem(alone)) throw new Error(alone.problem)
    expect(alone.authorization).toBe(`Basic ${b64(`${HOSTILE}:`)}`)
  })

  test.each<[string, string, string]>([
    ['plain http elsewhere', `http://${HOSTILE}@Git.Example.com/a.git`, 'in clear'],
    ['ssh', `ssh://${HOSTILE}@git.example.com/a.git`, "the scheme 'ssh'"],
    ['no path', `https://${HOSTILE}@git.example.com`, 'names no repository path'],
    ['a query', `https://${HOSTILE}@git.example.com/a.git?x=1`, 'query or fragment'],
    ['a bad host', `https://${HOSTILE}@git example.com/a.git`, 'is not a valid URL'],
    ['no scheme', `${HOSTILE}@git.example.com/a.git`, 'is not a URL'],
  ])('with such a token, %s is refused and no part of it shows', (_name, raw, expected) => {
    const parsed = parseRepoUrl(raw)
    expect(isProblem(parsed) && parsed.problem).toContain(expected)
    expectNoPart(JSON.stringify(parsed))
  })

  test('every credential of a text is found, in a time linear in its length', () => {
    const text = `"https://u:${HOSTILE}@h/x.git","https://a@h/x,https://b%41@h/y"`
    expect(credentialsInText(text)).toEqual(
      expect.arrayContaining([HOSTILE, `u:${HOSTILE}`, 'a', 'b%41', 'bA']),
    )
    // What made a 100,000-character name take 13 s: a scheme-like run with no '://'. Each
    // character is now looked at a bounded number of times, so these return at once.
    expect(credentialsInText('a'.repeat(100_000))).toEqual([])
    expect(credentialsInText('a://'.repeat(25_000))).toEqual([])
  })

  test('credentials found anywhere in a text, even invalid JSON', () => {
    const text =
      '[{"git": {"repo": "https://user:s3cr%2Ft@h/x.git", "other": "http://tok9@h/y"} oops'
    expect(credentialsInText(text)).toEqual(
      expect.arrayContaining(['s3cr%2Ft', 's3cr/t', 'user:s3cr%2Ft', 'tok9']),
    )
    expect(credentialsInText(text)).not.toContain('user')
    expect(credentialsInText('https://x:${TOKEN}@h/x.git')).toEqual([])
  })
})

describe('git messages', () => {
  const FIVE = [
    "fatal: could not read Password for 'http://wrong-token@127.0.0.1:4567': terminal prompts disabled",
    "fatal: could not read Username for 'http://127.0.0.1:4567': terminal prompts disabled",
    "remote: Authentication required\nfatal: Authentication failed for 'http://127.0.0.1:4567/team/app.git/'",
  ]
  test.each(FIVE)('auth failure: %s', (message) => {
    expect(classifyGitMessage(message)).toBe('auth')
    expect(cleanGitMessage(message)).not.toContain('wrong-token')
  })

  test.each([
    ' ! [rejected]        HEAD -> main (fetch first)\nerror: failed to push some refs to x',
    ' ! [rejected]        HEAD -> main (non-fast-forward)\nerror: failed to push some refs to x',
    "remote: error: cannot lock ref 'refs/heads/main': is at 1 but expected 2\n ! [remote rejected] HEAD -> main (failed to update ref)",
  ])('lost push race: %s', (message) => {
    expect(classifyGitMessage(message)).toBe('rejected')
  })

  eachAnswer('%s is %s', classifyGitMessage, [
    [' ! [remote rejected] HEAD -> main (pre-receive hook declined)', 'other'],
    ["remote: Repository not found.\nfatal: repository 'https://h/x.git/' not found", 'not-found'],
    ['Author identity unknown\n\n*** Please tell me who you are.', 'identity'],
    ['fatal: unable to access: Could not resolve host: h', 'other'],
  ])

  test('cleaning drops hints and blank lines, keeps a few lines, strips URL credentials', () => {
    const message = `To https://tok@h/x.git\n ! [rejected] main (fetch first)\nhint: Updates were rejected\n\n${'x\n'.repeat(20)}`
    const cleaned = cleanGitMessage(message)
    expect(cleaned).toContain('To https://***@h/x.git')
    expect(cleaned).not.toContain('hint:')
    expect(cleaned.split('\n')).toHaveLength(9)
    expect(stripUrlCredentials("for 'http://a:b@h:1/x'")).toBe("for 'http://***@h:1/x'")
  })

  test("the server's remote: lines keep their line, carriage returns and escapes shown escaped", () => {
    const message =
      'remote: denied\r\u001b[0Ksection_start:1:evil\r\u001b[0KFAKE\r\nfatal: unable to access'
    expect(cleanGitMessage(message).split('\n')).toEqual([
      'remote: denied\\x0d\\x1b[0Ksection_start:1:evil\\x0d\\x1b[0KFAKE',
      'fatal: unable to access',
    ])
  })
})
