import { describe, expect, test } from '@jest/globals'
import type { BuiltImage } from '../../../../../src/core/build-images/build.js'
import {
  recordImages,
  recordProof,
  type ReuseRecord,
  type ReuseRecords,
} from '../../../../../src/core/build-images/reuse/ci-record.js'
import type { RegistrySession } from '../../../../../src/core/registry/session.js'

const F = `sha256:${'f'.repeat(64)}`
const D = `sha256:${'d'.repeat(64)}`

function store(
  kept: ReuseRecord[],
  problem?: string,
  untrusted?: () => Promise<string | undefined>,
): ReuseRecords & { added: ReuseRecord[] } {
  const added: ReuseRecord[] = []
  return {
    where: 'the test cache',
    added,
    untrusted: untrusted ?? (() => Promise.resolve(undefined)),
    has: (r) =>
      Promise.resolve(kept.some((k) => k.fingerprint === r.fingerprint && k.digest === r.digest)),
    add: (records) => {
      added.push(...records)
      return Promise.resolve(problem)
    },
  }
}

const image = (kind: BuiltImage['kind'], reused = false): BuiltImage => ({
  id: kind,
  kind,
  reference: `r.io/shop/${kind}:main-1a2b3c4`,
  references: [],
  digest: D,
  ...(reused ? { reused: { since: 'main-0000000', fingerprint: F } } : {}),
})

async function record(
  records: ReuseRecords,
  images: BuiltImage[],
  branch = 'main',
  saidUntrusted?: string,
): Promise<string[]> {
  const lines: string[] = []
  await recordImages(
    images,
    {
      fingerprints: new Map(images.map((i) => [i.kind, F])),
      recorded: new Set(),
      ...(saidUntrusted ? { untrusted: saidUntrusted } : {}),
    },
    { push: true, branch, defaultBranch: 'main' },
    { records, logger: { info: (line: string) => lines.push(line) } as never, redact: (t) => t },
  )
  return lines
}

describe('recordImages', () => {
  test('built images are recorded; a reused one whose record exists is not written twice', async () => {
    const records = store([{ fingerprint: F, digest: D, image: 'x' }])
    const lines = await record(records, [image('frontend'), image('backend', true)])
    expect(records.added.map((r) => r.image)).toEqual(['r.io/shop/frontend:main-1a2b3c4'])
    expect(lines).toEqual([
      `Recorded in the test cache: the default branch built r.io/shop/frontend:main-1a2b3c4 as ${D} (fingerprint ${F}).`,
    ])
  })

  test('another branch records nothing; a store that fails says that the next run builds', async () => {
    expect(await record(store([]), [image('frontend')], 'feature')).toEqual([
      "Not recorded in the test cache: later runs trust only what the default branch 'main' built, and this run builds 'feature'.",
    ])
    expect(await record(store([], 'the service said no'), [image('frontend')])).toEqual([
      'Not recorded in the test cache (the service said no): the next run builds these images again.',
    ])
  })
})

describe('recordImages where the records are not trusted', () => {
  const why = 'is not trusted on this ref'

  test('nothing is written; said in one line, unless the look-up said it already', async () => {
    const records = store([], undefined, () => Promise.resolve(why))
    expect(await record(records, [image('frontend')])).toEqual([
      'Not recorded in the test cache: it is not trusted on this ref.',
    ])
    expect(await record(records, [image('frontend')], 'main', why)).toEqual([])
    expect(records.added).toEqual([])
  })

  test('a store that cannot judge itself is not trusted either', async () => {
    const records = store([], undefined, () => Promise.reject(new Error('no git, no index')))
    expect(await record(records, [image('frontend')])).toEqual([
      'Not recorded in the test cache: it is not trusted: judging whether it can be failed (no git, no index).',
    ])
    expect(records.added).toEqual([])
  })
})

describe('recordProof', () => {
  const candidate = {
    kind: 'frontend' as const,
    digest: D,
    fingerprint: F,
    session: undefined as unknown as RegistrySession,
  }

  test('proven only by a record of that fingerprint and digest', async () => {
    expect(
      await recordProof(store([{ fingerprint: F, digest: D, image: 'x' }])).verify(candidate),
    ).toEqual({
      proven: true,
      said: 'the test cache records that the default branch built it',
    })
    expect(await recordProof(store([])).verify(candidate)).toEqual({
      proven: false,
      said: `no record in the test cache that the default branch built ${D} (never recorded, or evicted)`,
    })
  })

  test('a store that cannot be read proves nothing', async () => {
    const broken: ReuseRecords = {
      where: 'the test cache',
      untrusted: () => Promise.resolve(undefined),
      has: () => Promise.reject(new Error('down')),
      add: () => Promise.resolve(undefined),
    }
    expect(await recordProof(broken).verify(candidate)).toEqual({
      proven: false,
      said: 'the test cache could not be read (down)',
    })
  })
})
