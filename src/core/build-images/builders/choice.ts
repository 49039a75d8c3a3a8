import { ActionError } from '../../shared/errors.js'
import type { Clock, Logger } from '../../shared/ports.js'
import { BUILDER_NAMES, type BuilderName, type ImageBuilder } from './image-builder.js'

/**
 * The `builder` input decided: Docker where an engine answers, Buildah where only it is there.
 * DOCKER_HOST says the job meant Docker (a Docker-in-Docker service, a remote engine): its
 * engine is waited for a bounded time, as such a service may still be starting, and when it
 * does not answer the step fails rather than build elsewhere.
 */

export const BUILDER_SETTINGS = ['auto', ...BUILDER_NAMES] as const
export type BuilderSetting = (typeof BUILDER_SETTINGS)[number]

/** How long an engine that DOCKER_HOST names may take to answer: a dind service starting. */
export const DOCKER_HOST_WAIT_SECONDS = 60
const POLL_MS = 2000

/** Each builder of the runner, asked only whether it answers; and DOCKER_HOST. */
export type BuilderCandidates = Record<BuilderName, Pick<ImageBuilder, 'versions'>> & {
  /** DOCKER_HOST as the job sets it; undefined or '' when it does not. */
  dockerHost?: string
}

export interface BuilderChoice {
  name: BuilderName
  /** Why, for the log: `a Docker engine answers (26.1.5)`. */
  why: string
}

export async function chooseBuilder(
  setting: BuilderSetting,
  candidates: BuilderCandidates,
  ports: { clock: Clock; logger: Logger; redact: (text: string) => string },
): Promise<BuilderChoice> {
  if (setting !== 'auto' && setting !== 'docker')
    return { name: setting, why: `'builder' is '${setting}'` }
  const host = candidates.dockerHost?.trim()
  if (host) return waitForDockerHost(setting, host, candidates, ports)
  if (setting === 'docker') return { name: 'docker', why: "'builder' is 'docker'" }
  const docker = await candidates.docker.versions()
  if (docker.server)
    return { name: 'docker', why: `a Docker engine answers (Docker ${docker.server})` }
  const buildah = await candidates.buildah.versions()
  const noEngine = `no Docker engine answers (${docker.problem ?? 'no answer'})`
  if (buildah.client)
    return { name: 'buildah', why: `${noEngine}, and Buildah ${buildah.client} is on PATH` }
  throw new ActionError(
    ports.redact(
      `'builder' is 'auto', but ${noEngine} and Buildah could not be run (${buildah.problem ?? 'no answer'}): nothing was built. Give the runner a Docker engine (Docker 24 or newer, with buildx), or Buildah (Debian: apt-get install buildah uidmap), or set 'builder' to the one it has.`,
    ),
  )
}

/** Polls the engine DOCKER_HOST names until it answers or the wait is over; never falls back. */
async function waitForDockerHost(
  setting: BuilderSetting,
  host: string,
  candidates: BuilderCandidates,
  ports: { clock: Clock; logger: Logger; redact: (text: string) => string },
): Promise<BuilderChoice> {
  const started = ports.clock.now().getTime()
  const because = setting === 'docker' ? "'builder' is 'docker'" : `DOCKER_HOST is set ('${host}')`
  let said = false
  for (;;) {
    const versions = await candidates.docker.versions()
    if (versions.server)
      return {
        name: 'docker',
        why: `${because}, and its engine answers (Docker ${versions.server})`,
      }
    const waited = ports.clock.now().getTime() - started
    if (waited >= DOCKER_HOST_WAIT_SECONDS * 1000)
      throw new ActionError(
        ports.redact(
          `${setting === 'auto' ? `'builder' is 'auto' and DOCKER_HOST is set ('${host}'), which means Docker` : `'builder' is 'docker' and DOCKER_HOST is set ('${host}')`}, but no Docker engine answered there within ${DOCKER_HOST_WAIT_SECONDS} s (${versions.problem ?? 'no answer'}). Nothing was built, and no other builder was tried: start the engine (on GitLab, a 'docker:dind' service), or correct DOCKER_HOST${setting === 'auto' ? ", or unset it and set 'builder: buildah' to build without Docker" : ''}.`,
        ),
      )
    if (!said) {
      ports.logger.info(
        ports.redact(
          `DOCKER_HOST is set ('${host}'), but its engine does not answer yet (${versions.problem ?? 'no answer'}): waiting up to ${DOCKER_HOST_WAIT_SECONDS} s for it, as a Docker-in-Docker service may still be starting.`,
        ),
      )
      said = true
    }
    await ports.clock.sleep(Math.min(POLL_MS, DOCKER_HOST_WAIT_SECONDS * 1000 - waited))
  }
}
