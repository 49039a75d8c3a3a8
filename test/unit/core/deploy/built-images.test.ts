import { describe, expect, test } from '@jest/globals'
import type { BuiltImage } from '../../../../src/core/build-images/build.js'
import { buildOutputs } from '../../../../src/core/build-images/report.js'
import {
  namedBackendRules,
  namedBackends,
  parseBuiltImages,
  unreachedBackends,
  unreachedWarning,
  type BuiltImages,
} from '../../../../src/core/deploy/built-images.js'
import { escapeRegExp } from '../../../../src/core/shared/regexp.js'
import { deployedTo } from '../../../helpers/deploy-rules.js'

const D = (char: string): string => `sha256:${char.repeat(64)}`
const REG = 'reg.example.com:5000/shop'

/** build-images' `images` output, as its report writes it. */
function imagesOutput(images: BuiltImage[]): string {
  return buildOutputs(images, { skipped: false, targets: [] }).images
}

const backend = (name: string, digest: string, tag = '1.4.0'): BuiltImage => ({
  id: `backend:${name}`,
  kind: 'backend',
  name,
  reference: `${REG}/backend-${name}:${tag}`,
  references: [`${REG}/backend-${name}:${tag}`],
  digest,
  size: 1000,
})
const FRONTEND: BuiltImage = {
  id: 'frontend',
  kind: 'frontend',
  reference: `${REG}/frontend:1.4.0`,
  references: [`${REG}/frontend:1.4.0`],
  digest: D('f'),
}
const CAD: BuiltImage = {
  ...FRONTEND,
  id: 'codeasdata',
  kind: 'codeasdata',
  reference: `${REG}/codeasdata:1.4.0`,
  digest: D('c'),
}

function parsed(raw: string): BuiltImages {
  const result = parseBuiltImages(raw)
  if ('problem' in result) throw new Error(result.problem)
  return result
}

const problemOf = (raw: string): string => {
  const result = parseBuiltImages(raw)
  return 'problem' in result ? result.problem : 'no problem'
}

describe("built-images: build-images' images output, read as it is", () => {
  test('one output: each image bound to the digest pushed, backends named', () => {
    const raw = imagesOutput([FRONTEND, backend('api', D('a')), backend('worker', D('b')), CAD])
    expect(parsed(raw)).toEqual({
      frontend: `${REG}/frontend:1.4.0@${D('f')}`,
      backends: [
        { name: 'api', reference: `${REG}/backend-api:1.4.0@${D('a')}` },
        { name: 'worker', reference: `${REG}/backend-worker:1.4.0@${D('b')}` },
      ],
      codeasdata: `${REG}/codeasdata:1.4.0@${D('c')}`,
    })
  })

  test("several outputs, one per line (a fan-in's legs), blank lines and a skipped leg's [] ignored", () => {
    const raw = [
      imagesOutput([FRONTEND]),
      '',
      imagesOutput([backend('api', D('a'))]),
      '[]',
      `  ${imagesOutput([backend('worker', D('b'))])}\r`,
    ].join('\n')
    expect(parsed(raw)).toEqual({
      frontend: `${REG}/frontend:1.4.0@${D('f')}`,
      backends: [
        { name: 'api', reference: `${REG}/backend-api:1.4.0@${D('a')}` },
        { name: 'worker', reference: `${REG}/backend-worker:1.4.0@${D('b')}` },
      ],
    })
  })

  test('one unnamed backend (build-images without backends); a reference that already has its digest is kept', () => {
    const unnamed = { ...backend('x', D('a')), name: undefined, id: 'backend' }
    delete unnamed.name
    const pinned = { ...FRONTEND, reference: `${REG}/frontend:1.4.0@${D('f')}` }
    expect(parsed(imagesOutput([pinned, unnamed]))).toEqual({
      frontend: `${REG}/frontend:1.4.0@${D('f')}`,
      backends: [{ reference: `${REG}/backend-x:1.4.0@${D('a')}` }],
    })
  })

  const EXPECTED = `expected build-images' 'images' output as it is, or several, one JSON list per line, such as '[{"kind": "backend", "name": "api", "reference": "reg.example.com/shop/backend-api:1.4.0", "digest": "sha256:…"}]'`
  const entry = (fields: Record<string, unknown>): string =>
    JSON.stringify([{ kind: 'backend', reference: 'r.io/shop/api:1', digest: D('a'), ...fields }])

  test.each<[string, string, string]>([
    [
      'a line that is not JSON',
      `[]\n[{"kind": "backend",}]`,
      `line 2 is not valid JSON: unexpected '}' at column 21; ${EXPECTED}`,
    ],
    [
      'a line cut short',
      '[{"kind"',
      `line 1 is not valid JSON: it ends too early (at its end); ${EXPECTED}`,
    ],
    ['an object, not a list', '{"kind": "frontend"}', `line 1 is not a JSON list; ${EXPECTED}`],
    [
      'an unknown kind',
      entry({ kind: 'database' }),
      `line 1: at [0].kind: expected one of 'frontend', 'backend', 'codeasdata', got "database"`,
    ],
    [
      'no digest key',
      JSON.stringify([{ kind: 'frontend', reference: 'r.io/f:1' }]),
      "line 1: at [0].digest: is missing: the digest build-images pushed ('sha256:…')",
    ],
    [
      'a digest that is not sha256',
      entry({ digest: 'sha256:ABC' }),
      "line 1, entry [0]: the digest 'sha256:ABC' of 'r.io/shop/api:1' is not one build-images writes; expected 'sha256:' and 64 lower-case hexadecimal characters",
    ],
    [
      'an empty digest (not pushed)',
      entry({ digest: '' }),
      "line 1, entry [0]: 'r.io/shop/api:1' has no digest: build-images did not push it ('push: false'), and an image is deployed by the digest pushed; deploy from a run that pushes",
    ],
    [
      'a reference without tag',
      entry({ reference: 'r.io/shop/api' }),
      "line 1, entry [0]: the reference 'r.io/shop/api' has no tag or digest; expected '<registry>/<name>:<tag>' or '<registry>/<name>@sha256:<digest>' (lowercase name, tag of letters, digits, '_', '.', '-')",
    ],
    [
      'a reference pinned to another digest',
      entry({ reference: `r.io/shop/api:1@${D('b')}` }),
      `line 1, entry [0]: 'r.io/shop/api:1@${D('b')}' names ${D('b')}, but its digest is ${D('a')}; give build-images' output as it is`,
    ],
    [
      'a name the platform cannot hold',
      entry({ name: 'API_1' }),
      "line 1, entry [0]: the backend name 'API_1' is not one the platform can hold (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
    ],
    [
      'a name on a frontend',
      entry({ kind: 'frontend', name: 'web' }),
      "line 1, entry [0]: a frontend image has no name; only backend images carry one (build-images' 'backends')",
    ],
    [
      'two frontends',
      `${entry({ kind: 'frontend' })}\n${entry({ kind: 'frontend', reference: 'r.io/shop/web:2' })}`,
      `line 2, entry [0]: a second frontend image ('r.io/shop/web:2', after 'r.io/shop/api:1@${D('a')}'); a deployment takes one`,
    ],
    [
      'two code-as-data images',
      `[${entry({ kind: 'codeasdata' }).slice(1, -1)}, ${entry({ kind: 'codeasdata' }).slice(1, -1)}]`,
      `line 1, entry [1]: a second codeasdata image ('r.io/shop/api:1', after 'r.io/shop/api:1@${D('a')}'); a deployment takes one`,
    ],
    [
      'a named backend twice',
      `${entry({ name: 'api' })}\n\n${entry({ name: 'api', digest: D('b') })}`,
      "line 3, entry [0]: the backend 'api' is listed twice; each named backend takes one image (a fan-in gathers each leg's list once)",
    ],
  ])('refused: %s', (_name, raw, problem) => {
    expect(problemOf(raw)).toBe(problem)
  })
})

describe('the deploy rules made for named backends', () => {
  const backends = namedBackends(
    parsed(
      imagesOutput([
        backend('api', D('a')),
        backend('api-v2', D('b')),
        backend('worker', D('c'), 'main-5e6f708'),
      ]),
    ),
  )
  const rules = namedBackendRules(backends)

  test('one rule per backend: its image, by tag, digest, both or neither; its name alone', () => {
    expect(rules).toEqual([
      {
        source: `^reg\\.example\\.com:5000/shop/backend-api(:1\\.4\\.0)?(@sha256:${'a'.repeat(64)})?$`,
        target: '^api$',
      },
      {
        source: `^reg\\.example\\.com:5000/shop/backend-api-v2(:1\\.4\\.0)?(@sha256:${'b'.repeat(64)})?$`,
        target: '^api-v2$',
      },
      {
        source: `^reg\\.example\\.com:5000/shop/backend-worker(:main-5e6f708)?(@sha256:${'c'.repeat(64)})?$`,
        target: '^worker$',
      },
    ])
  })

  const deployed = (images: string[], names: string[]): Record<string, string[]> =>
    deployedTo(rules, images, names)

  test('each backend gets its own image, pinned or not, and a name outside the list nothing', () => {
    const names = ['api', 'api-v2', 'worker', 'api-v', 'xapi', 'api2', 'worker-old', '']
    const pinned = backends.map((b) => b.reference)
    const tagged = pinned.map((reference) => reference.split('@')[0] ?? '')
    const expected = (list: string[]): Record<string, string[]> => ({
      api: [list[0] ?? ''],
      'api-v2': [list[1] ?? ''],
      worker: [list[2] ?? ''],
      'api-v': [],
      xapi: [],
      api2: [],
      'worker-old': [],
      '': [],
    })
    expect(deployed(pinned, names)).toEqual(expected(pinned))
    expect(deployed(tagged, names)).toEqual(expected(tagged))
    // Another tag or digest of the same repository, or a longer repository name, is not its image.
    expect(
      deployed(
        [
          `${REG}/backend-api:1.4.1`,
          `${REG}/backend-api:1.4.0@${D('e')}`,
          `${REG}/backend-api-v3:1.4.0`,
          `${REG}/backend-apixv2:1.4.0`,
          `reg.example.com:5000/shopx/backend-api:1.4.0`,
          `regxexample.com:5000/shop/backend-api:1.4.0`,
        ],
        ['api', 'api-v2'],
      ),
    ).toEqual({ api: [], 'api-v2': [] })
  })

  test('escapeRegExp: every character JavaScript gives a meaning, matched literally', () => {
    const text = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o'
    expect(new RegExp(`^${escapeRegExp(text)}$`).test(text)).toBe(true)
    expect(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb')).toBe(false)
  })
})

describe("'deploy-rules' given: the named backends no rule gives an image", () => {
  const backends = [
    { name: 'api', reference: `r.io/shop/backend-api:1@${D('a')}` },
    { name: 'worker', reference: `r.io/shop/backend-worker:1@${D('b')}` },
  ]
  const images = backends.map((b) => b.reference)
  const forever = (): number => 60_000

  test('a backend whose targeting rules match no image, or that no rule targets, is named', () => {
    const rules = [
      { source: 'backend-api', target: '^api$' },
      { source: 'backend-nothing', target: '^worker$' },
    ]
    expect(unreachedBackends(backends, rules, images, forever)).toEqual({
      unreached: [backends[1]],
    })
    expect(unreachedBackends(backends, [{ source: '.*', target: '.*' }], images, forever)).toEqual({
      unreached: [],
    })
    expect(unreachedWarning({ name: 'worker', reference: images[1] ?? '' })).toBe(
      `The backend 'worker' of 'built-images' gets no image from 'deploy-rules': no rule whose target matches 'worker' has a source that matches a backend image of the payload, so the platform does not update it (its image is 'r.io/shop/backend-worker:1@${D('b')}'). Add a rule for it, or leave 'deploy-rules' empty to give each named backend its own image.`,
    )
  })

  test('a target that backtracks is stopped and named as a target', () => {
    const slow = [{ source: '.*', target: '^(a+)+$' }]
    const result = unreachedBackends(
      [{ name: `${'a'.repeat(40)}-x`, reference: images[0] ?? '' }],
      slow,
      images,
      forever,
    )
    expect(result).toMatchObject({ tooSlow: { rule: 0, field: 'target', pattern: '^(a+)+$' } })
  })
})
