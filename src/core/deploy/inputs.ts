import type { InputValues, ParseTools, RawInputs } from '../definition.js'
import { EXISTING_LOGIN, type RegistryLogin } from '../registry/credentials.js'
import { registryLogin } from '../registry/inputs.js'
import type { CiContext } from '../shared/context.js'
import { InputProblems, parseInputs } from '../shared/inputs.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { deployDefinition, type DeployInputName } from './definition.js'
import { acceptedRepositories } from './provenance.js'

/**
 * The deploy action's inputs, validated and typed (see deployDefinition), with the registry
 * login of `registry`, `registry-username` and `registry-password` taken together, and the
 * repositories `require-provenance` accepts (this run's, when it is true).
 */
export type DeployInputs = Omit<
  InputValues<typeof deployDefinition>,
  'registry' | 'registryUsername' | 'registryPassword'
> & { registryLogin?: RegistryLogin; provenanceRepositories?: string[] }

export function parseDeployInputs(
  raw: RawInputs<DeployInputName>,
  tools?: ParseTools,
  context: Partial<Pick<CiContext, 'registryPasswordFrom' | 'platform' | 'repositoryUrl'>> = {},
): DeployInputs {
  const { registry, registryUsername, registryPassword, ...inputs } = parseInputs(
    deployDefinition,
    raw,
    tools,
  )
  const problems = new InputProblems(deployDefinition, raw)
  // Without the inputs, the image check reads the logins of the Docker config.
  const login = registryLogin(registry, registryUsername, registryPassword, problems, {
    existing: EXISTING_LOGIN.docker,
    passwordFrom: context.registryPasswordFrom,
  })
  const insecure = insecureHttpProblem(inputs.webhookUrl, inputs.allowInsecureHttp)
  if (insecure) problems.add('webhook-url', insecure)
  if (inputs.verifySignatures && inputs.verifyImages === 'false')
    problems.add(
      'verify-images',
      "is false, but 'verify-signatures' is set, and the signatures are checked during the image check; set 'verify-images' to 'true' (or 'auto', which then acts as 'true'), or leave 'verify-signatures' empty",
    )
  if (inputs.verifySignatures && inputs.pinDigests === 'false')
    problems.add(
      'pin-digests',
      "is false, but 'verify-signatures' is set: a signature is checked for the digest the registry gave, and a tag sent as given may be moved to another, unsigned, image before the platform pulls it; set 'pin-digests' to 'auto' (or 'true'), which sends each image by that digest, or leave 'verify-signatures' empty",
    )
  if (inputs.pinDigests === 'true' && inputs.verifyImages === 'false')
    problems.add(
      'pin-digests',
      "is true, but 'verify-images' is false, and the digests to send come from the image check; set 'verify-images' to 'true' (or 'auto', which then acts as 'true'), or 'pin-digests' to 'auto' or 'false'",
    )
  const provenanceRepositories = inputs.requireProvenance
    ? problems.take(
        'require-provenance',
        acceptedRepositories(inputs.requireProvenance, { platform: 'local', ...context }),
        [],
      )
    : undefined
  if (inputs.requireProvenance && !inputs.verifySignatures)
    problems.add(
      'require-provenance',
      "is set, but 'verify-signatures' is empty: a provenance proves where an image was built only under the key that signed it; give 'verify-signatures' the public key (cosign.pub) whose private key attests the images, or set 'require-provenance' to false",
    )
  problems.throwIfAny()
  return {
    ...inputs,
    registryLogin: login,
    ...(provenanceRepositories ? { provenanceRepositories } : {}),
  }
}

/** Plain http would carry the bearer token in clear, except on this machine's loopback. */
function insecureHttpProblem(url: URL, allowed: boolean): string | undefined {
  if (url.protocol === 'https:' || allowed || isLoopbackHost(url.hostname)) return undefined
  return "plain http:// is refused because the token would travel in clear; use https://, or set 'allow-insecure-http: true' if the network is trusted"
}
