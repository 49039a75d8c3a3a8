import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { readLockFile } from '../../../../src/core/attestations/lock-file.js'

const SRI =
  'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=='

function lock(packages: Record<string, unknown>, lockfileVersion: unknown = 3): string {
  return JSON.stringify({
    name: 'shop',
    lockfileVersion,
    packages: { '': { name: 'shop' }, ...packages },
  })
}

describe("the packages a build may ship, from npm's lock file", () => {
  test('those not development-only, nested and scoped ones included, each once, sorted', () => {
    const text = lock({
      'node_modules/@olympeio/runtime-node': { version: '9.8.1', integrity: SRI },
      'node_modules/express': { version: '4.21.2', integrity: SRI },
      'node_modules/express/node_modules/debug': { version: '2.6.9' },
      'node_modules/debug': { version: '4.4.0' },
      'node_modules/other/node_modules/debug': { version: '4.4.0' },
      'node_modules/jest': { version: '30.0.0', dev: true },
      'node_modules/fsevents': { version: '2.3.3', devOptional: true, optional: true },
      'node_modules/alias': { version: '1.0.0', name: 'real-name' },
      'packages/tool': { version: '0.0.1' },
      'node_modules/tool': { resolved: 'packages/tool', link: true },
    })
    expect(readLockFile('package-lock.json', text)).toEqual({
      path: 'package-lock.json',
      digest: `sha256:${createHash('sha256').update(text).digest('hex')}`,
      packages: [
        { name: '@olympeio/runtime-node', version: '9.8.1', integrity: SRI },
        { name: 'debug', version: '2.6.9' },
        { name: 'debug', version: '4.4.0' },
        { name: 'express', version: '4.21.2', integrity: SRI },
        { name: 'fsevents', version: '2.3.3' },
        { name: 'real-name', version: '1.0.0' },
      ],
    })
  })

  test.each([
    [
      'lockfileVersion 1',
      lock({}, 1),
      "'package-lock.json' has lockfileVersion 1, and only versions 2 and 3 list their packages ('packages'); write it again with npm 7 or newer (`npm install --package-lock-only`)",
    ],
    [
      'no lockfileVersion',
      '{"packages":{}}',
      "'package-lock.json' has lockfileVersion missing, and only versions 2 and 3 list their packages ('packages'); write it again with npm 7 or newer (`npm install --package-lock-only`)",
    ],
    ['no packages', '{"lockfileVersion":2}', "'package-lock.json' has no 'packages' object"],
    [
      'not JSON',
      '{"lockfileVersion":',
      "'package-lock.json' is not valid JSON: it ends too early (after line 1)",
    ],
    ['an array', '[]', "'package-lock.json' is not a JSON object"],
  ])('%s: refused, saying why', (_name, text, problem) => {
    expect(readLockFile('package-lock.json', text)).toEqual({ problem })
  })
})
