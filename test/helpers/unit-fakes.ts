// Set-ups the unit tests of one action share: a CI context and the ports of a run, all in memory.
import type { BuildImagesPorts } from '../../src/core/build-images/run.js'
import type { CiContext } from '../../src/core/shared/context.js'
import type { Files } from '../../src/core/shared/ports.js'
import { fakeBuilders, type FakeDocker } from './docker-fake.js'
import { recordingTools, type Recorded } from './recording.js'
import { failure, fakeNetwork, type FakeNetwork } from './fake-registry.js'
import { frozenClock } from './memory-files.js'

/** A push to main on GitHub, in the project folder /p. */
export const PUSH_TO_MAIN: CiContext = {
  platform: 'github',
  workspace: '/p',
  event: 'push',
  isPullRequest: false,
  branch: 'main',
  defaultBranch: 'main',
  sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
  repository: 'acme/shop',
  registryLoginHelp: 'Check the login.',
}

/**
 * build-images' ports around a fake builder: everything logged and reported is recorded, the
 * clock stands still, the registry API answers as `network` does (by default, no registry
 * answers, as offline).
 */
export function buildImagesPorts(
  docker: FakeDocker,
  files: Files,
  options: {
    builders?: BuildImagesPorts['builders']
    network?: FakeNetwork
    records?: BuildImagesPorts['records']
  } = {},
): BuildImagesPorts & Recorded {
  return {
    ...recordingTools(),
    redact: (text: string) => text,
    registerSecret: () => undefined,
    builders: options.builders ?? fakeBuilders(docker),
    files,
    clock: frozenClock('2026-11-22T10:00:00Z'),
    http: (options.network ?? fakeNetwork(() => failure('dns'))).http,
    ...(options.records ? { records: options.records } : {}),
  }
}
