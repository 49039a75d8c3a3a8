import {
  credentialSource,
  type CredentialsFor,
  type InputsLogin,
  type LoginPorts,
} from '../registry/logins.js'
import { getManifest, tagManifest } from '../registry/manifests.js'
import { registryImage } from '../registry/reference.js'
import { RegistrySession, type SessionPorts } from '../registry/session.js'
import { startDeadline } from '../shared/deadline.js'
import { CancelledError, errorMessage } from '../shared/errors.js'
import { tagOf } from '../shared/image-ref.js'
import { isProblem } from '../shared/problem.js'

/**
 * An image the engine pushed under its first tag gets its further tags (`extra-tags`, the
 * branch's moving tag) through the registry API, as an unchanged image does (reuse/tagging.ts):
 * the manifest read back by the digest the push reported (its bytes hashed against it), then PUT
 * under the tag, which must then name that digest. The same bytes as a second `docker push` would
 * send, checked, and one docker process less per tag.
 *
 * Resolves to undefined when the tag names the digest, else why not: the caller then pushes the
 * tag with the builder after all. The engine may reach a registry this step cannot ask as it
 * does (a credential helper's login, the engine's own proxy or insecure registries).
 */
export type Retag = (
  pushed: string,
  digest: string,
  reference: string,
) => Promise<string | undefined>

/** Each tag's look-up and PUT; one request each, not retried (a failure falls back to a push). */
const RETAG_SECONDS = 30

export function registryRetag(
  login: InputsLogin | undefined,
  ports: SessionPorts & LoginPorts,
): Retag {
  // Each registry's login is chosen (and said in the log) once, when its first tag is given.
  const logins = new Map<string, Promise<CredentialsFor>>()
  return async (pushed, digest, reference) => {
    const from = registryImage(pushed)
    const to = registryImage(reference)
    if (isProblem(from)) return from.problem
    if (isProblem(to)) return to.problem
    if (from.origin !== to.origin || from.repository !== to.repository)
      return `'${reference}' is not in the repository of '${pushed}'`
    let credentialsFor = logins.get(to.registry)
    if (!credentialsFor) {
      credentialsFor = credentialSource([to], login, ports)
      logins.set(to.registry, credentialsFor)
    }
    const deadline = startDeadline(
      ports.clock,
      RETAG_SECONDS,
      `the ${RETAG_SECONDS} s given to the tag '${tagOf(reference)}'`,
    )
    const session = new RegistrySession(
      to,
      (await credentialsFor)(to),
      'pull,push',
      deadline,
      ports,
      1,
    )
    try {
      const manifest = await getManifest(session, digest)
      if ('kind' in manifest) return `reading ${digest} back: ${manifest.detail}`
      return await tagManifest(session, manifest, tagOf(reference))
    } catch (error) {
      // Tagging this way only saves a push: whatever goes wrong, the push does it, as before;
      // but a cancelled step stops here.
      if (error instanceof CancelledError) throw error
      return errorMessage(error)
    }
  }
}
