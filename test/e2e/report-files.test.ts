// The files the command line writes for GitLab (`--dotenv`, `--annotations`), under the names
// both templates use, when the repository holds a symbolic link there: the link is replaced by
// the report, and the file it points at is left as it was.
import { describe, expect, test } from '@jest/globals'
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup } from '../helpers/suite.js'
import { runCli } from '../helpers/run-action.js'

const cleanup = useCleanup()

const KEPT = 'a file of the job that no report may overwrite\n'

describe('reports named by a symbolic link', () => {
  test.each([
    ['--annotations', 'olympe-deploy-annotations.json'],
    ['--dotenv', 'olympe-deploy.env'],
  ])('%s %s: the link is replaced, what it points at untouched', async (flag, name) => {
    const root = await cleanup.tempDir('olympe-report-link-')
    const project = join(root, 'project')
    await mkdir(project)
    const outside = join(root, 'outside.txt')
    await writeFile(outside, KEPT)
    await symlink(outside, join(project, name))
    const run = await runCli('deploy', {
      cwd: project,
      inputs: {
        'webhook-url': 'https://hooks.example.com/deploy/5e6f7a8b9c',
        'webhook-token': 'report-link-token-81',
        'frontend-image': 'registry.example.com/shop/frontend:1.4.0',
        'verify-images': 'false',
        'app-url': 'https://shop.example.com',
        'dry-run': 'true',
      },
      env: { GITLAB_CI: 'true' },
      args: [flag, name],
    })
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
    expect(await readFile(outside, 'utf8')).toBe(KEPT)
    const written = join(project, name)
    const info = await lstat(written)
    expect({ link: info.isSymbolicLink(), mode: info.mode & 0o777 }).toEqual({
      link: false,
      mode: 0o600,
    })
    const text = await readFile(written, 'utf8')
    if (flag === '--annotations')
      expect(JSON.parse(text)).toEqual({
        'Olympe deploy': expect.arrayContaining([
          { external_link: { label: 'App', url: 'https://shop.example.com' } },
        ]) as unknown,
      })
    else expect(text).toContain('OLYMPE_DEPLOY_URL=https://shop.example.com\n')
  })
})
