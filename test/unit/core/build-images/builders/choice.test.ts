import { describe, expect, test } from '@jest/globals'
import {
  chooseBuilder,
  DOCKER_HOST_WAIT_SECONDS,
  type BuilderCandidates,
  type BuilderSetting,
} from '../../../../../src/core/build-images/builders/choice.js'
import type { BuilderVersions } from '../../../../../src/core/build-images/builders/build-command.js'
import { ActionError } from '../../../../../src/core/shared/errors.js'
import { fakeNetwork, failure } from '../../../../helpers/fake-registry.js'
import { recordingTools } from '../../../../helpers/recording.js'

type Answer = BuilderVersions & { problem?: string }
const ENGINE: Answer = { client: '28.2.2', server: '26.1.5', platform: 'linux/amd64' }
const NO_ENGINE: Answer = {
  client: '28.2.2',
  problem: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock.',
}
const BUILDAH: Answer = { client: '1.28.2', platform: 'linux/amd64' }
const NO_BUILDAH: Answer = { problem: 'the buildah command could not start (spawn buildah ENOENT)' }

/** Docker answers as `docker` says, one answer per call (the last repeats); buildah as told. */
function candidates(docker: Answer[], buildah: Answer, dockerHost?: string): BuilderCandidates {
  let calls = 0
  return {
    dockerHost,
    docker: { versions: () => Promise.resolve(docker[Math.min(calls++, docker.length - 1)] ?? {}) },
    buildah: { versions: () => Promise.resolve(buildah) },
  }
}

async function choose(
  setting: BuilderSetting,
  given: BuilderCandidates,
): Promise<{ chosen?: unknown; error?: unknown; lines: string[]; waited: number }> {
  const { logger, lines } = recordingTools()
  const { clock, waits } = fakeNetwork(() => failure('dns'))
  const ports = { clock, logger, redact: (text: string) => text }
  try {
    const chosen = await chooseBuilder(setting, given, ports)
    return { chosen, lines, waited: waits.reduce((a, b) => a + b, 0) }
  } catch (error) {
    return { error, lines, waited: waits.reduce((a, b) => a + b, 0) }
  }
}

describe('the builder chosen at once, and why', () => {
  // prettier-ignore
  test.each<[string, BuilderSetting, BuilderCandidates, { name: string; why: string }]>([
    ['auto, an engine answers: Docker', 'auto', candidates([ENGINE], BUILDAH), { name: 'docker', why: 'a Docker engine answers (Docker 26.1.5)' }],
    ['auto, no engine, buildah on PATH: Buildah', 'auto', candidates([NO_ENGINE], BUILDAH), { name: 'buildah', why: 'no Docker engine answers (Cannot connect to the Docker daemon at unix:///var/run/docker.sock.), and Buildah 1.28.2 is on PATH' }],
    ['docker: taken as said (the pre-flight checks the engine)', 'docker', candidates([NO_ENGINE], BUILDAH), { name: 'docker', why: "'builder' is 'docker'" }],
    ['buildah: DOCKER_HOST and an engine make no difference', 'buildah', candidates([ENGINE], NO_BUILDAH, 'tcp://docker:2375'), { name: 'buildah', why: "'builder' is 'buildah'" }],
  ])('%s', async (_title, setting, given, expected) => {
    const { chosen, waited } = await choose(setting, given)
    expect(chosen).toEqual(expected)
    expect(waited).toBe(0)
  })
})

describe('builder: auto picks the one the runner has, and says why', () => {
  test('neither: fails, naming both', async () => {
    const { error } = await choose('auto', candidates([NO_ENGINE], NO_BUILDAH))
    expect(error).toBeInstanceOf(ActionError)
    expect((error as Error).message).toBe(
      "'builder' is 'auto', but no Docker engine answers (Cannot connect to the Docker daemon at unix:///var/run/docker.sock.) and Buildah could not be run (the buildah command could not start (spawn buildah ENOENT)): nothing was built. Give the runner a Docker engine (Docker 24 or newer, with buildx), or Buildah (Debian: apt-get install buildah uidmap), or set 'builder' to the one it has.",
    )
  })

  test('DOCKER_HOST set, the engine answers after a while: waited for, then Docker', async () => {
    const given = candidates([NO_ENGINE, NO_ENGINE, ENGINE], BUILDAH, 'tcp://docker:2375')
    const { chosen, lines, waited } = await choose('auto', given)
    expect(chosen).toEqual({
      name: 'docker',
      why: "DOCKER_HOST is set ('tcp://docker:2375'), and its engine answers (Docker 26.1.5)",
    })
    expect(waited).toBe(4000)
    expect(lines).toEqual([
      "DOCKER_HOST is set ('tcp://docker:2375'), but its engine does not answer yet (Cannot connect to the Docker daemon at unix:///var/run/docker.sock.): waiting up to 60 s for it, as a Docker-in-Docker service may still be starting.",
    ])
  })

  test('DOCKER_HOST set and never answering: fails after the wait, Buildah never tried', async () => {
    let buildahAsked = false
    const given = candidates([NO_ENGINE], BUILDAH, 'tcp://docker:2375')
    given.buildah = {
      versions: () => {
        buildahAsked = true
        return Promise.resolve(BUILDAH)
      },
    }
    const { error, waited } = await choose('auto', given)
    expect(waited).toBe(DOCKER_HOST_WAIT_SECONDS * 1000)
    expect(buildahAsked).toBe(false)
    expect((error as Error).message).toBe(
      "'builder' is 'auto' and DOCKER_HOST is set ('tcp://docker:2375'), which means Docker, but no Docker engine answered there within 60 s (Cannot connect to the Docker daemon at unix:///var/run/docker.sock.). Nothing was built, and no other builder was tried: start the engine (on GitLab, a 'docker:dind' service), or correct DOCKER_HOST, or unset it and set 'builder: buildah' to build without Docker.",
    )
  })
})

describe('builder: docker or buildah', () => {
  test('docker with DOCKER_HOST: waited for too, and the message has no Buildah advice', async () => {
    const { error } = await choose('docker', candidates([NO_ENGINE], BUILDAH, 'tcp://dind:2376'))
    expect((error as Error).message).toBe(
      "'builder' is 'docker' and DOCKER_HOST is set ('tcp://dind:2376'), but no Docker engine answered there within 60 s (Cannot connect to the Docker daemon at unix:///var/run/docker.sock.). Nothing was built, and no other builder was tried: start the engine (on GitLab, a 'docker:dind' service), or correct DOCKER_HOST.",
    )
  })
})
