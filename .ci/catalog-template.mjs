// A template of gitlab/ as the GitLab CI/CD catalog serves it (`.ci/catalog-layout.mjs` writes it
// to templates/<name>/template.yml, and the catalog project's release pipeline again, pinned, with
// `.ci/catalog-pin.mjs`): its jobs run in the job image of its own release, which holds
// olympe-deploy, so that they need no npm registry. From gitlab/<name>.yml, which works with any
// `include:` and any GitLab (its jobs fetch the package with npx, unless their image holds it),
// it differs in four ways:
// - `spec: component: [version]`, which GitLab 18.6 and later understand (older ones refuse it);
// - the input `job-image-prefix`, whose default names the catalog project's own registry path;
// - the image inputs default to `$OLYMPE_DEPLOY_JOB_IMAGE`, since an input's default cannot read
//   the component's version;
// - each job sets that variable to the job image of the release: as released, by the digest the
//   release pipeline pushed (`<job-image-prefix>/olympe-deploy:<version>@sha256:…`), so that
//   neither a re-run of that pipeline nor anyone who can push to the registry changes what a
//   released component runs; as laid out, before that pipeline ran, by its tag
//   (`<job-image-prefix>/olympe-deploy:<component.version>`).
// Setting an image input (`image: node:24-slim`) takes the npx path again.

export const JOB_IMAGE_VARIABLE = 'OLYMPE_DEPLOY_JOB_IMAGE'
const IMAGE_INPUTS = ['image', 'node-image', 'docker-image']

/** GitLab project paths as its registry takes them: `<group>[/<subgroup>…]/<project>`. */
export const PROJECT_PATH = /^[\w.-]+(\/[\w.-]+)+$/

/** `$CI_REGISTRY/<path>`: the registry path GitLab gives the project, lowercase. */
export function jobImagePrefix(projectPath) {
  return `$CI_REGISTRY/${projectPath.toLowerCase()}`
}

function prefixInput(name, prefix) {
  const uses =
    name === 'pipeline'
      ? 'the `node-image` and `docker-image` inputs default to it'
      : 'the `image` input defaults to it'
  const description =
    'Registry path of the job image, `<job-image-prefix>/olympe-deploy:<release>@sha256:…`, which ' +
    `the catalog project's release pipeline pushed, named by its digest: ${uses}. Set it only to ` +
    'a registry path that holds that very image (a copy of it keeps its digest).'
  return [
    '    job-image-prefix:',
    `      description: ${JSON.stringify(description)}`,
    `      default: ${JSON.stringify(prefix)}`,
    '',
  ].join('\n')
}

/** What the release pipeline pushed: a release number, and the digest of the image pushed. */
const VERSION = /^\d+\.\d+\.\d+$/
const DIGEST = /^sha256:[0-9a-f]{64}$/

/**
 * gitlab/<name>.yml's text `source` as the catalog component, for the given prefix; with `pin`,
 * `{ version, digest }` of the job image the release pipeline pushed, the jobs name it by digest.
 */
export function catalogTemplate(name, source, prefix, pin) {
  const fail = (what) => {
    throw new Error(`gitlab/${name}.yml ${what}: the catalog layout cannot make its component.`)
  }
  if (pin && !VERSION.test(pin.version))
    throw new Error(`The version '${pin.version}' is not a release number such as 1.2.3.`)
  if (pin && !DIGEST.test(pin.digest))
    throw new Error(
      `The digest '${pin.digest}' is not a sha256 digest (sha256: and 64 hex digits).`,
    )
  const once = (text, pattern, replacement, what) => {
    const found = text.match(new RegExp(pattern.source, `${pattern.flags}g`)) ?? []
    if (found.length !== 1) fail(`has ${found.length} ${what}, not one`)
    return text.replace(pattern, replacement)
  }
  let text = once(
    source,
    /^spec:\n(?= {2}inputs:\n)/m,
    'spec:\n  component: [version]\n',
    "'spec:'",
  )
  text = once(text, /^(?= {4}version:\n)/m, prefixInput(name, prefix), "'version' input")
  let images = 0
  for (const input of IMAGE_INPUTS) {
    const entry = new RegExp(`^( {4}${input}:\\n(?: {6}(?!default:).*\\n)* {6}default: ).*$`, 'm')
    if (!entry.test(text)) continue
    text = text.replace(entry, `$1$${JOB_IMAGE_VARIABLE}`)
    images += 1
  }
  if (images === 0) fail(`has none of the inputs ${IMAGE_INPUTS.join(', ')}`)
  const body = text.indexOf('\n---\n')
  if (body < 0) fail("has no '---' after its spec")
  const jobs = text.slice(body).match(/^[^\s#][^\n]*:$/gm)?.length ?? 0
  const tag = pin ? `${pin.version}@${pin.digest}` : '$[[ component.version ]]'
  const variable = `    ${JOB_IMAGE_VARIABLE}: $[[ inputs.job-image-prefix ]]/olympe-deploy:${tag}\n`
  const withVariables = text.slice(body).replace(/^ {2}variables:\n/gm, `  variables:\n${variable}`)
  const set = withVariables.split(variable).length - 1
  if (set !== jobs) fail(`has ${jobs} jobs but ${set} with 'variables:'`)
  return text.slice(0, body) + withVariables
}
