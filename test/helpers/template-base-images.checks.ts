// Checks for template-base-images.ts, run by docker-env.check.ts: the two flavours must differ
// exactly as real bases with and without `ONBUILD ARG SOURCES_PATH` do, or the tests that pick
// one prove nothing. The template's own frontend Dockerfile is built FROM each.
import { strict as assert } from 'node:assert'
import { cp, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { withCleanup } from './cleanup.js'
import { docker, dockerRun } from './docker-env.js'
import {
  ensureTemplateBaseImages,
  useBaseFlavour,
  type BaseFlavour,
} from './template-base-images.js'
import { TEMPLATE_FIXTURE } from './template-project.js'

/** What /usr/share/nginx/html holds after `--build-arg SOURCES_PATH=dist/web`, per flavour. */
const EXPECTED: Record<BaseFlavour, string[]> = {
  // The argument reaches COPY: dist/web's files only.
  onbuild: ['index.html'],
  // Undeclared, $SOURCES_PATH expands to nothing and COPY takes the whole build context.
  plain: ['dist', 'docker', 'secret.txt'],
}

export async function checkTemplateBaseFlavours(
  step: <T>(name: string, action: () => Promise<T>) => Promise<T>,
): Promise<void> {
  await step('ensureTemplateBaseImages', ensureTemplateBaseImages)
  for (const flavour of ['onbuild', 'plain'] as const) {
    await withCleanup(async (cleanup) => {
      const context = await cleanup.tempDir('olympe-flavour-check-')
      const image = `olympe-flavour-check-${process.pid}-${flavour}`
      cleanup.add(image, () => docker(['image', 'rm', image]).catch(() => ''))
      await cp(join(TEMPLATE_FIXTURE, 'docker'), join(context, 'docker'), { recursive: true })
      await useBaseFlavour(context, flavour)
      await mkdir(join(context, 'dist/web'), { recursive: true })
      await writeFile(join(context, 'dist/web/index.html'), '<html>')
      await writeFile(join(context, 'secret.txt'), 'not for the image')
      const args = ['build', '--quiet', '--file', 'docker/frontend.Dockerfile']
      args.push('--build-arg', 'SOURCES_PATH=dist/web', '--tag', image, '.')
      await step(`build the template's frontend FROM the ${flavour} base`, () =>
        docker(args, { cwd: context }),
      )
      const listing = await dockerRun(image, ['ls', '/usr/share/nginx/html'])
      assert.deepEqual(listing.split('\n').filter(Boolean).sort(), EXPECTED[flavour], flavour)
    })
  }
}
