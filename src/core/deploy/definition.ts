import type { ActionDefinition } from '../definition.js'
import { registryInputs } from '../registry/inputs.js'
import { mirrorCredentials, registryMirrors } from '../registry/mirrors.js'
import {
  CHECK_ONLY,
  choice,
  choiceWithDefault,
  decimalMinutes,
  flag,
  text,
  wholeNumber,
} from '../shared/inputs.js'
import {
  appUrl,
  deployRules,
  expectedVersion,
  imageReference,
  imageReferenceList,
  previewUrl,
  requireProvenance,
  verifySignatures,
  webhookToken,
  webhookUrl,
} from './input-parsers.js'
import { OCI_LABELS, SERVED_FILES_LABEL } from '../shared/image-labels.js'
import { builtImages } from './built-images.js'
import { rolloutOutputDescription } from './outcomes.js'
import { MODES } from './payload-schema.js'
import { PIN_MODES } from './pinning.js'
import { webhookUrlParts } from './secrets.js'
import { urlCredentials } from '../shared/url-credentials.js'
import { pastedPrivateKey } from '../signing/pem.js'
import { VERIFY_MODES } from './verify-images.js'

export const deployDefinition = {
  id: 'deploy',
  name: 'Olympe deploy',
  description:
    'Assembles the Olympe deployment payload from image references, calls the deployment webhook and watches the rollout until the app serves the new version; fails on anything but success.',
  inputs: {
    'webhook-url': {
      description:
        'Deployment webhook address supplied by the platform operator (keep it in a secret).',
      required: true,
      secret: webhookUrlParts,
      parse: webhookUrl,
    },
    'webhook-token': {
      description:
        'Webhook authorization token, sent as `Authorization: Bearer <token>` (keep it in a secret).',
      required: true,
      secret: true,
      parse: webhookToken,
    },
    'allow-insecure-http': {
      description:
        'Allow a plain `http://` webhook on a non-loopback host (the token would travel in clear).',
      ...flag('false'),
    },
    'frontend-image': {
      description:
        'Frontend image reference to deploy, `<registry>/<name>:<tag>` or with a digest.',
      parse: imageReference,
    },
    'backend-images': {
      description: 'Backend image references to deploy, one per line or comma-separated.',
      multiline: true,
      parse: imageReferenceList,
    },
    'codeasdata-image': {
      description: 'Code-as-data image reference; set it only when a code-as-data image was built.',
      parse: imageReference,
    },
    'built-images': {
      description:
        "build-images' `images` output as it is, or several of them, one JSON list per line (a fan-in job's legs): fills the frontend, each backend and the code-as-data image, each sent by the digest build-images pushed (`<reference>@sha256:…`, checked in its registry by that digest, never by its tag). Named backends (build-images' `backends`) each get a deploy rule of their own that gives that backend its image and no other, unless `deploy-rules` is set (then sent as given, with a warning for a named backend no rule gives an image). Refused with `frontend-image` or `codeasdata-image` when it has that image too, with unnamed backend images beside named ones unless `deploy-rules` is set, and with a `payload-file` that names images or deploy rules.",
      multiline: true,
      parse: builtImages,
    },
    'verify-images': {
      description:
        'Check in their registries that every image of the payload exists before calling the webhook (registry HTTP API; no Docker needed). `auto`: an image that does not exist fails the step, one whose registry cannot be asked (no access, network, time-out) earns a warning; `true`: both fail it; `false`: no check.',
      ...choiceWithDefault(VERIFY_MODES, 'auto'),
    },
    'verify-signatures': {
      description:
        'Deploy only signed images: a public key in PEM (`cosign.pub`, its text or its path in the workspace). Every image of the payload must then carry a valid signature under it for its digest, as `cosign verify --key` checks (build-images signs with `signing-key`; `cosign sign --key` signatures count too), or the step fails before calling the webhook. Turns the image check on, with `verify-images: auto` acting as `true`.',
      multiline: true,
      // A private key pasted where its public key belongs must not show in the log either.
      secret: pastedPrivateKey,
      parse: verifySignatures,
    },
    'require-provenance': {
      description:
        "With `verify-signatures`: deploy only images that carry a SLSA provenance (`https://slsa.dev/provenance/v1`) under its key, as `cosign attest --type slsaprovenance1` attaches one, made for the digest deployed, whose source repository (`buildDefinition.externalParameters.repository`) is accepted; any other image fails the step before the webhook is called, naming it and why (no provenance, another key, another digest, another repository). `true`: this repository (the CI's own: GitHub's server and repository, GitLab's `CI_PROJECT_URL`); or the addresses of the repositories accepted, one per line or comma-separated, such as `https://github.com/acme/shop`. `false`: not required. Refused without `verify-signatures`.",
      default: 'false',
      multiline: true,
      parse: requireProvenance,
    },
    'pin-digests': {
      description:
        "Send each image checked by the digest of the manifest the image check read, `<name>:<tag>@sha256:<digest>` (the tag kept, for people; a reference given with a digest is sent as given), so that the platform pulls the very image that was checked, or nothing, even if the tag is moved in between. `auto`: with `verify-signatures`, every image; otherwise only an image that its mirror in `registry-mirrors` answered for, and the rest as given (the spec's references are `<registry>/<name>:<tag>`, and a platform may refuse a digest). `true`: every image, which the image check must then check (`auto` acts as `true`). `false`: as given, and a mirrored registry's images are checked at that registry itself; refused with `verify-signatures`.",
      ...choiceWithDefault(PIN_MODES, 'auto'),
    },
    ...registryInputs({
      registry:
        'Here it names the registry the login is for, for the image check (the namespace is not used). Default: the registry of the image inputs when they are all in one, never one named only in `payload-file` (set it then).',
      username:
        "Used by the image check. Without them, the job's Docker config (a `docker login` in an earlier step) is used, else the registries are asked anonymously.",
      password: 'Read access is enough.',
    }),
    'registry-mirrors': {
      description:
        "Registries whose images the image check asks another registry about, one `registry=mirror` per line, such as `docker.io=registry.internal/dockerhub` (a path after the mirror's host allowed), as build-images reads them: for runners that cannot reach the registry an image names. No credentials in the value.",
      secret: mirrorCredentials,
      multiline: true,
      parse: registryMirrors,
    },
    'deploy-rules': {
      description:
        'JSON or YAML list of `{source, target}` regular expressions (JavaScript syntax) mapping backend images to backends; a `source` that takes over 250 ms to match an image is refused. Default: one rule `.*` to `.*`; with named backends in `built-images`, one rule per backend, giving it its own image.',
      multiline: true,
      parse: deployRules,
    },
    'codeasdata-update-mode': {
      description:
        'Whether code as data is deployed automatically or after a manual approval (`auto` or `manual`). Default `manual`, or the value in `payload-file`.',
      ...choice(MODES),
    },
    'promotion-mode': {
      description:
        'No-downtime promotion mode (`auto` or `manual`). Default `manual`, or the value in `payload-file`.',
      ...choice(MODES),
    },
    'skip-update-versions': {
      description:
        'Skip the automatic update of the orchestrator and toolkit to the stable versions (rarely needed).',
      ...flag('false'),
    },
    'force-sync': {
      description:
        'Force the code as data to be synced to the orchestrator (`extraArgs: ["--force-sync"]`).',
      ...flag('false'),
    },
    'payload-file': {
      description:
        'Path of a JSON base payload: a regular file of at most 1 MiB in the workspace (a symbolic link may lead there, not out of it), validated like the inputs (the payload keys as Olympe documents them). The inputs above then set and append to it.',
      ...text,
    },
    'timeout-seconds': {
      description:
        "Bound on the step up to the webhook's answer: reading `payload-file`, checking the deploy rules, the image check (at most half of the time left, so that the webhook call keeps the rest), reading the app's version before the call, and the webhook call with its retries. The rollout watch has `wait-minutes` of its own.",
      ...wholeNumber(1, 3600, '60'),
    },
    'app-url': {
      description:
        "Address of the deployed app (its frontend), such as `https://shop.example.com`. After the webhook's success the step watches the rollout there (`<app-url>/version.json`, `<app-url>/OlympeServer/status`, and, when the version did not change, the files of the frontend image's served-files label) until it serves this deployment's build: only then is the rollout `live`. A protected app may be given as `https://user:password@…` (sent as Basic auth; masked, and never in an output; a `/`, `?` or `#` in them written percent-encoded). Without it, nothing is watched.",
      secret: urlCredentials,
      parse: appUrl,
    },
    'preview-url': {
      description:
        "With `promotion-mode: manual` (the default payload's): the address where the platform serves the new version until someone promotes it (Olympe's no-downtime installs: the preview host), watched as `app-url` is. Then `awaiting-promotion` means that the preview serves this build; the app is watched too for the whole of `wait-minutes`, so that a promotion meanwhile ends `live`. May hold credentials as `app-url` may (masked, never in an output).",
      secret: urlCredentials,
      parse: previewUrl,
    },
    'expected-version': {
      description: `Version the app must serve once the rollout is done (the \`version\` of its \`version.json\`). Default: the \`${OCI_LABELS.version}\` label of \`frontend-image\` (build-images sets it), read in the registry during the image check with the frontend's \`${SERVED_FILES_LABEL}\` label. Unknown, nothing shows that the app serves the new build: the rollout ends \`unverified\` at best.`,
      parse: expectedVersion,
    },
    'wait-minutes': {
      description:
        "How long to watch the rollout after the webhook's success, in minutes, at most 360 (decimals allowed: `0.5` is 30 seconds); `0` does not watch. Not live by then fails the step, except a new version that awaits a manual promotion (a warning state, as `unverified`).",
      default: '30',
      type: 'number',
      parse: decimalMinutes({ max: 360, example: 30, zero: '0 does not watch' }),
    },
    'poll-seconds': {
      description:
        "Pause between two polls of the app during the rollout watch, in seconds, from a minute after the webhook's answer: in that first minute, and right after a first answer with this build (to confirm it), the watch polls every 2 s (or every `poll-seconds`, if less). A roll-back is told only once another build was served for at least this long.",
      ...wholeNumber(1, 600, '15'),
    },
    'require-evidence': {
      description:
        'Fail the step when nothing shows that the app serves the new build (`unverified`, or `awaiting-promotion` without `preview-url`), instead of ending in a warning state.',
      ...flag('false'),
    },
    'dry-run': {
      description: 'Validate, print the payload and the redacted request, and send nothing.',
      ...flag('false'),
    },
    'check-only': CHECK_ONLY,
  },
  outputs: {
    payload: {
      description:
        'The JSON payload sent (or, on a dry run, that would be sent), its images named as sent: pinned by digest where `pin-digests` pins them. Empty when the image check fails.',
    },
    status: { description: 'HTTP status of the webhook response (empty on a dry run).' },
    message: {
      description:
        "The response's `message` field, also after a failed call (empty on a dry run or without one).",
    },
    url: {
      description:
        "The app's address, `app-url` without its credentials (for GitHub's `environment.url`); empty without `app-url`.",
    },
    rollout: { description: rolloutOutputDescription() },
    'live-version': {
      description:
        'The version the app served at the last poll that read one; empty when none was read.',
    },
    digests: {
      description:
        'JSON object of each image reference checked, as given, and the digest of the manifest its registry sent (its bytes hashed), `{"<reference>": "sha256:…"}`; an image that could not be checked is left out, and it is `{}` when `verify-images` is false.',
    },
  },
} as const satisfies ActionDefinition

export type DeployInputName = keyof typeof deployDefinition.inputs
