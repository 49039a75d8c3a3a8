// The packages the project template fixture installs, all our own code (the real @olympeio ones
// are proprietary): stand-ins under test/fixtures/stand-in-packages/, and the fake toolkit,
// published under a 1.2.x version so that the template's `~1.2.0` range takes it.
import { cp, readFile, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { withCleanup } from './cleanup.js'
import { FAKE_TOOLKIT_DIR } from './fake-toolkit.js'
import { fixture } from './run-action.js'
import { run } from './run-process.js'
import type { Verdaccio } from './verdaccio.js'

export const STAND_IN_PACKAGES = fixture('stand-in-packages')

/** The versions `npm install` resolves for the template's ranges. */
export const STAND_IN_VERSIONS = {
  draw: '2.15.3',
  runtime: '9.15.3',
  toolkit: '1.2.99',
  webpack: '5.99.7',
} as const

const FOLDERS = ['draw', 'runtime-web', 'runtime-node', 'webpack']

/** Packs every stand-in and publishes it with `token`; resolves to the `name@version` list. */
export async function publishStandIns(registry: Verdaccio, token: string): Promise<string[]> {
  return withCleanup(async (cleanup) => {
    const out = await cleanup.tempDir('olympe-stand-ins-')
    const toolkit = await toolkitPackage(join(out, 'toolkit'))
    const folders = [...FOLDERS.map((name) => join(STAND_IN_PACKAGES, name)), toolkit]
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', out, ...folders],
      { cwd: out, env: { PATH: process.env.PATH ?? '', HOME: out } },
    )
    const packed = JSON.parse(stdout) as { filename: string; name: string; version: string }[]
    for (const { filename } of packed) await registry.publish(join(out, basename(filename)), token)
    return packed.map(({ name, version }) => `${name}@${version}`)
  })
}

/** A copy of the fake toolkit whose manifest can be published under the 1.2.x version. */
async function toolkitPackage(dir: string): Promise<string> {
  await cp(FAKE_TOOLKIT_DIR, dir, { recursive: true })
  const file = join(dir, 'package.json')
  const manifest = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
  delete manifest.private
  manifest.version = STAND_IN_VERSIONS.toolkit
  await writeFile(file, JSON.stringify(manifest, null, 2))
  return dir
}
