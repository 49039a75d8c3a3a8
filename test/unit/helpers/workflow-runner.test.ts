// The workflow runner's matrices, artifacts and output files (test/helpers/workflow-runner.ts,
// workflow-matrix.ts, workflow-artifacts.ts): what the fan-out of the reusable workflow rests on,
// checked on workflows of `run:` steps only, in temporary folders.
import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { withCleanup, type Cleanup } from '../../helpers/cleanup.js'
import { downloadArtifact, uploadArtifact } from '../../helpers/workflow-artifacts.js'
import { evaluate, type ExpressionScope } from '../../helpers/workflow-expressions.js'
import { expandMatrix, legName } from '../../helpers/workflow-matrix.js'
import {
  commandFile,
  jobResults,
  runWorkflow,
  type WorkflowRun,
  type WorkflowRunOptions,
} from '../../helpers/workflow-runner.js'

const scope = (contexts: ExpressionScope['contexts'] = {}): ExpressionScope => ({
  contexts,
  workspace: '/nonexistent',
})

describe('expressions: fromJSON and toJSON', () => {
  const plan = { needs: { plan: { outputs: { matrix: '["frontend","backend:api"]' } } } }

  test('fromJSON gives the list a matrix takes, toJSON the text back', () => {
    expect(evaluate('fromJSON(needs.plan.outputs.matrix)', scope(plan))).toEqual([
      'frontend',
      'backend:api',
    ])
    expect(evaluate("toJSON(fromJSON('[1]'))", scope())).toBe('[\n  1\n]')
    expect(evaluate('fromJSON(\'{"a":{"b":true}}\')', scope())).toEqual({ a: { b: true } })
  })

  test('fromJSON of anything but JSON (an empty output) is an error, as on GitHub', () => {
    expect(() => evaluate('fromJSON(needs.plan.outputs.none)', scope(plan))).toThrow(
      "fromJSON(): '' is not JSON",
    )
  })
})

describe('matrices, expanded as GitHub documents them', () => {
  test('the product of the vectors, in the order they are written; an expression is evaluated first', () => {
    const contexts = { needs: { plan: { outputs: { legs: '["frontend","backend:api"]' } } } }
    const matrix = { image: '${{ fromJSON(needs.plan.outputs.legs) }}', node: [20, 24] }
    expect(expandMatrix(matrix, scope(contexts))).toEqual([
      { image: 'frontend', node: 20 },
      { image: 'frontend', node: 24 },
      { image: 'backend:api', node: 20 },
      { image: 'backend:api', node: 24 },
    ])
  })

  test('a whole matrix from an expression', () => {
    const contexts = { inputs: { matrix: '{"include":[{"a":1},{"a":2,"b":3}]}' } }
    expect(expandMatrix('${{ fromJSON(inputs.matrix) }}', scope(contexts))).toEqual([
      { a: 1 },
      { a: 2, b: 3 },
    ])
  })

  // GitHub's example of "Expanding or adding matrix configurations".
  test('include: added to every leg whose original values it keeps, else a leg of its own', () => {
    const matrix = {
      fruit: ['apple', 'pear'],
      animal: ['cat', 'dog'],
      include: [
        { color: 'green' },
        { color: 'pink', animal: 'cat' },
        { fruit: 'apple', shape: 'circle' },
        { fruit: 'banana' },
        { fruit: 'banana', animal: 'cat' },
      ],
    }
    expect(expandMatrix(matrix, scope())).toEqual([
      { fruit: 'apple', animal: 'cat', color: 'pink', shape: 'circle' },
      { fruit: 'apple', animal: 'dog', color: 'green', shape: 'circle' },
      { fruit: 'pear', animal: 'cat', color: 'pink' },
      { fruit: 'pear', animal: 'dog', color: 'green' },
      { fruit: 'banana' },
      { fruit: 'banana', animal: 'cat' },
    ])
  })

  // GitHub's example of "Excluding matrix configurations".
  test('exclude: every leg that has all the values of an entry is left out', () => {
    const matrix = {
      os: ['macos-latest', 'windows-latest'],
      version: [12, 14, 16],
      environment: ['staging', 'production'],
      exclude: [
        { os: 'macos-latest', version: 12, environment: 'production' },
        { os: 'windows-latest', version: 16 },
      ],
    }
    const legs = expandMatrix(matrix, scope())
    expect(legs).toHaveLength(9)
    expect(legs).not.toContainEqual({
      os: 'macos-latest',
      version: 12,
      environment: 'production',
    })
    expect(legs.filter((leg) => leg.os === 'windows-latest' && leg.version === 16)).toEqual([])
  })

  test('an empty vector, or one that is not a list, is refused as GitHub refuses it', () => {
    expect(() =>
      expandMatrix({ image: '${{ fromJSON(inputs.legs) }}' }, scope({ inputs: { legs: '[]' } })),
    ).toThrow("Matrix vector 'image' does not contain any values")
    expect(() => expandMatrix({ image: 'frontend' }, scope())).toThrow(
      "Matrix vector 'image' is not a list: frontend",
    )
  })

  test('a leg is named after its job and its values', () => {
    expect(legName('images', { image: 'backend:api', node: 24 })).toBe('images (backend:api, 24)')
  })
})

describe('GITHUB_OUTPUT, as the runner reads it', () => {
  test('name=value lines, and values of several lines between delimiters', () => {
    const text = [
      'one=1',
      'built<<EOF_1',
      '[{"kind":"frontend"}]',
      '[{"kind":"backend","name":"api"}]',
      'EOF_1',
      'empty=',
      'equals=a=b',
      '',
    ].join('\n')
    expect(commandFile(text)).toEqual({
      one: '1',
      built: '[{"kind":"frontend"}]\n[{"kind":"backend","name":"api"}]',
      empty: '',
      equals: 'a=b',
    })
  })

  test('a delimiter that never comes is an error', () => {
    expect(() => commandFile('built<<EOF\n[]\n')).toThrow("Matching delimiter not found 'EOF'")
  })
})

describe('actions/upload-artifact and download-artifact, on a folder of the run', () => {
  async function folders(cleanup: Cleanup): Promise<{ workspace: string; store: string }> {
    const workspace = await cleanup.tempDir('olympe-artifacts-workspace-')
    await mkdir(join(workspace, 'out/nested'), { recursive: true })
    await writeFile(join(workspace, 'out/a.json'), '["a"]\n')
    await writeFile(join(workspace, 'out/nested/b.json'), '["b"]\n')
    await writeFile(join(workspace, 'out/.hidden'), 'secret\n')
    return { workspace, store: await cleanup.tempDir('olympe-artifacts-store-') }
  }

  test('one file lands at the top of its artifact, a folder keeps its tree without hidden files', async () => {
    await withCleanup(async (cleanup) => {
      const { workspace, store } = await folders(cleanup)
      const file = await uploadArtifact({ name: 'one', path: 'out/a.json' }, workspace, store)
      const folder = await uploadArtifact(
        { name: 'tree', path: `${workspace}/out` },
        workspace,
        store,
      )
      expect([file.code, folder.code]).toEqual([0, 0])

      const target = join(workspace, 'got')
      const got = await downloadArtifact({ pattern: '*', path: target }, workspace, store)
      expect(got).toMatchObject({ code: 0, outputs: { 'download-path': target } })
      expect(await readFile(join(target, 'one/a.json'), 'utf8')).toBe('["a"]\n')
      expect(await readFile(join(target, 'tree/nested/b.json'), 'utf8')).toBe('["b"]\n')
      expect(existsSync(join(target, 'tree/.hidden'))).toBe(false)
    })
  })

  test('download by pattern with merge-multiple puts every file in one folder; by name, into the path itself', async () => {
    await withCleanup(async (cleanup) => {
      const { workspace, store } = await folders(cleanup)
      await uploadArtifact({ name: 'olympe-images-frontend', path: 'out/a.json' }, workspace, store)
      await uploadArtifact(
        { name: 'olympe-images-backend-api', path: 'out/nested/b.json' },
        workspace,
        store,
      )
      await uploadArtifact(
        { name: 'other', path: 'out/.hidden', 'include-hidden-files': 'true' },
        workspace,
        store,
      )

      const merged = join(workspace, 'merged')
      const inputs = { pattern: 'olympe-images-*', path: merged, 'merge-multiple': 'true' }
      expect((await downloadArtifact(inputs, workspace, store)).texts.stdout).toBe(
        'Total of 2 artifact(s) downloaded\n',
      )
      expect([
        await readFile(join(merged, 'a.json'), 'utf8'),
        await readFile(join(merged, 'b.json'), 'utf8'),
      ]).toEqual(['["a"]\n', '["b"]\n'])
      expect(existsSync(join(merged, '.hidden'))).toBe(false)

      const named = join(workspace, 'named')
      await downloadArtifact({ name: 'other', path: named }, workspace, store)
      expect(await readFile(join(named, '.hidden'), 'utf8')).toBe('secret\n')
    })
  })

  test('what upload-artifact and download-artifact refuse, in their words', async () => {
    await withCleanup(async (cleanup) => {
      const { workspace, store } = await folders(cleanup)
      const upload = (inputs: Record<string, string>): ReturnType<typeof uploadArtifact> =>
        uploadArtifact({ path: 'out/a.json', ...inputs }, workspace, store)
      expect(await upload({ name: 'olympe-images-backend:api' })).toEqual({
        code: 1,
        outputs: {},
        texts: {
          stdout:
            '::error::The artifact name is not valid: olympe-images-backend:api. Contains the following character:  Colon :\n',
        },
      })
      expect((await upload({ name: 'leg' })).code).toBe(0)
      expect((await upload({ name: 'leg' })).texts.stdout).toBe(
        '::error::Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run\n',
      )
      await writeFile(join(workspace, 'out/a.json'), '["again"]\n')
      expect((await upload({ name: 'leg', overwrite: 'true' })).code).toBe(0)
      await downloadArtifact({ name: 'leg', path: 'again' }, workspace, store)
      expect(await readFile(join(workspace, 'again/a.json'), 'utf8')).toBe('["again"]\n')

      const none = { name: 'none', path: 'out/missing.json' }
      expect(
        await uploadArtifact({ ...none, 'if-no-files-found': 'error' }, workspace, store),
      ).toMatchObject({
        code: 1,
        texts: {
          stdout:
            '::error::No files were found with the provided path: out/missing.json. No artifacts will be uploaded.\n',
        },
      })
      expect((await uploadArtifact(none, workspace, store)).texts.stdout).toBe(
        '::warning::No files were found with the provided path: out/missing.json. No artifacts will be uploaded.\n',
      )
      expect((await downloadArtifact({ name: 'none' }, workspace, store)).texts.stdout).toBe(
        '::error::Unable to download artifact(s): Artifact not found for name: none\n',
      )
    })
  })
})

describe('a matrix job, its legs and the job that needs it', () => {
  // A plan job gives the legs as JSON; each leg hands over a file, as the reusable workflow's
  // legs do; the last job gathers them. Legs whose name starts with `broken` fail.
  const workflow = (failFast: boolean): object => ({
    on: { workflow_dispatch: { inputs: { legs: { type: 'string', default: '' } } } },
    jobs: {
      plan: {
        outputs: { legs: '${{ steps.plan.outputs.legs }}' },
        steps: [
          {
            id: 'plan',
            run: 'echo "legs=$LEGS" >> "$GITHUB_OUTPUT"',
            env: { LEGS: '${{ inputs.legs }}' },
          },
        ],
      },
      leg: {
        needs: 'plan',
        if: "needs.plan.outputs.legs != ''",
        environment: 'release',
        strategy: {
          'fail-fast': failFast,
          matrix: { image: '${{ fromJSON(needs.plan.outputs.legs) }}' },
        },
        outputs: { last: '${{ steps.hand.outputs.name }}' },
        steps: [
          {
            id: 'hand',
            env: { IMAGE: '${{ matrix.image }}' },
            run: [
              'case "$IMAGE" in broken*) echo "$IMAGE broke"; exit 1;; esac',
              'name="olympe-images-${IMAGE//:/-}"',
              'mkdir -p "$RUNNER_TEMP/out" && echo "[\\"$IMAGE\\"]" > "$RUNNER_TEMP/out/$name.json"',
              'echo "name=$name" >> "$GITHUB_OUTPUT"',
            ].join('\n'),
          },
          {
            uses: 'actions/upload-artifact@0000000000000000000000000000000000000000',
            with: {
              name: '${{ steps.hand.outputs.name }}',
              path: '${{ runner.temp }}/out/${{ steps.hand.outputs.name }}.json',
              'if-no-files-found': 'error',
            },
          },
        ],
      },
      gather: {
        needs: ['plan', 'leg'],
        steps: [
          {
            uses: 'actions/download-artifact@0000000000000000000000000000000000000000',
            with: {
              pattern: 'olympe-images-*',
              path: '${{ runner.temp }}/in',
              'merge-multiple': true,
            },
          },
          {
            id: 'lines',
            run: '{ echo "lines<<END"; cat "$RUNNER_TEMP"/in/*.json; echo END; } >> "$GITHUB_OUTPUT"',
          },
          {
            run: 'echo "$LINES"',
            env: { LINES: '${{ steps.lines.outputs.lines }}', RESULT: '${{ needs.leg.result }}' },
          },
        ],
      },
    },
  })

  async function run(legs: string, failFast = true): Promise<WorkflowRun> {
    return withCleanup(async (cleanup) => {
      const folder = await cleanup.tempDir('olympe-matrix-workflow-')
      const file = join(folder, 'fan-out.yml')
      await writeFile(file, stringify(workflow(failFast)))
      const options: WorkflowRunOptions = {
        workspace: folder,
        event: {
          name: 'workflow_dispatch',
          branch: 'main',
          defaultBranch: 'main',
          inputs: { legs },
        },
        sha: '1a2b3c4d5e6f',
        repository: 'acme/shop',
        actor: 'octocat',
        environments: { release: {} },
        env: { PATH: process.env.PATH ?? '', HOME: folder },
      }
      return runWorkflow(file, options)
    })
  }

  test('one run per leg, each with its matrix values and its environment; the next job needs them all and gets every file', async () => {
    const result = await run('["frontend","backend:api","backend:worker"]')

    expect(jobResults(result)).toEqual({
      plan: 'success',
      'leg (frontend)': 'success',
      'leg (backend:api)': 'success',
      'leg (backend:worker)': 'success',
      leg: 'success',
      gather: 'success',
    })
    expect(result.jobs.leg?.legs).toEqual([
      'leg (frontend)',
      'leg (backend:api)',
      'leg (backend:worker)',
    ])
    // An environment records a deployment for every job that runs in it: one per leg.
    expect(result.jobs['leg (backend:api)']?.environment).toBe('release')
    // The job's output is one leg's, the last one's: what a hand-over must not rest on.
    expect(result.jobs.leg?.outputs).toEqual({ last: 'olympe-images-backend-worker' })
    expect(Object.keys(result.artifacts)).toEqual([
      'olympe-images-backend-api',
      'olympe-images-backend-worker',
      'olympe-images-frontend',
    ])
    expect(result.artifacts['olympe-images-backend-api']).toEqual({
      'olympe-images-backend-api.json': '["backend:api"]\n',
    })
    const printed = result.steps.at(-1)?.texts.stdout ?? ''
    expect(printed.trim().split('\n').sort()).toEqual([
      '["backend:api"]',
      '["backend:worker"]',
      '["frontend"]',
    ])
  })

  test('a failed leg fails the matrix job, which the next job then needs in vain; fail-fast cancels the legs after it', async () => {
    const result = await run('["broken-a","frontend"]')

    expect(jobResults(result)).toEqual({
      plan: 'success',
      'leg (broken-a)': 'failure',
      'leg (frontend)': 'cancelled',
      leg: 'failure',
      gather: 'skipped',
    })
    expect(result.artifacts).toEqual({})

    const all = await run('["broken-a","frontend"]', false)
    expect([
      all.jobs['leg (frontend)']?.result,
      all.jobs.leg?.result,
      all.jobs.gather?.result,
    ]).toEqual(['success', 'failure', 'skipped'])
  })

  test('a matrix GitHub refuses fails its job with GitHub’s message, and no leg runs', async () => {
    const result = await run('[]')

    expect(result.jobs.leg).toEqual({
      result: 'failure',
      outputs: {},
      error:
        "Error when evaluating 'strategy' for job 'leg'. Matrix vector 'image' does not contain any values",
    })
    expect(result.steps.map((step) => step.job)).toEqual(['plan'])
  })
})
