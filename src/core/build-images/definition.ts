import type { ActionDefinition } from '../definition.js'
import { registryInputs } from '../registry/inputs.js'
import { mirrorCredentials, registryMirrors } from '../registry/mirrors.js'
import { DRAW_VERSION_LABEL, OCI_LABELS } from '../shared/image-labels.js'
import { CHECK_ONLY, choiceWithDefault, flag, text } from '../shared/inputs.js'
import { signingKeyParts } from '../signing/pem.js'
import { BUILDER_SETTINGS } from './builders/choice.js'
import { LOCK_ENTRY } from './plan/draw-version.js'
import { backends } from './backends-input.js'
import {
  branches,
  buildArgs,
  buildSecretParts,
  buildSecrets,
  cacheFrom,
  drawVersion,
  extraTags,
  imageName,
  images,
  platform,
  optionalRelativeFolder,
  relativeFolder,
  secretLookingArguments,
  signingKey,
  tagTemplate,
  workingDirectory,
} from './input-parsers.js'

export const buildImagesDefinition = {
  id: 'build-images',
  name: 'Olympe build images',
  description:
    'Builds the frontend, backend and code-as-data images an Olympe project asks for (`images`, `codeasdata`) from its docker/ folder, pushes them and outputs their references for the deploy action.',
  inputs: {
    ...registryInputs({
      registry:
        'Every image is pushed as `<registry>/<image name>:<tag>`, so `ghcr.io/acme` with the default image names gives `ghcr.io/acme/<owner>/<repository>/frontend`. Default `ghcr.io` on GitHub; required elsewhere (on GitLab, `$CI_REGISTRY`).',
      username:
        "Without them, the runner's existing login is used (`docker login`, or `buildah login`).",
      password: 'Given to `docker login` or `buildah login` on stdin; it needs push access.',
    }),
    'registry-mirrors': {
      description:
        "Registries whose images are read from another registry, one `registry=mirror` per line, such as `docker.io=registry.internal/dockerhub` (a path after the mirror's host allowed): for runners that cannot reach them, the base images of the Dockerfiles (`FROM olympeio/...`) are pulled from the mirror and looked up there for `reuse-unchanged`. A mirror on the host of `registry` is read with its login, any other anonymously or with the runner's own (`docker login`, `buildah login`). No credentials in the value.",
      secret: mirrorCredentials,
      multiline: true,
      parse: registryMirrors,
    },
    'frontend-image-name': {
      description:
        'Image name of the frontend, without registry or tag. Default `<repository>/frontend`, lowercase.',
      parse: imageName,
    },
    'backend-image-name': {
      description:
        "Image name of the backend, without registry or tag. Default `<repository>/backend`, lowercase. With `backends`, each backend's image is this name followed by `-<name>` (default `<repository>/backend-<name>`).",
      parse: imageName,
    },
    'codeasdata-image-name': {
      description:
        'Image name of the code-as-data image, without registry or tag. Default `<repository>/codeasdata`, lowercase.',
      parse: imageName,
    },
    'tag-template': {
      description:
        'Tag of every image. Placeholders: `{branch}` (made a valid tag: `feature/x` to `feature-x`), `{sha}`, `{short-sha}` (7 characters), `{run-id}`, `{date}` (UTC `YYYYMMDD`).',
      default: '{branch}-{short-sha}',
      parse: tagTemplate,
    },
    'extra-tags': {
      description:
        'More tags for every image (such as `latest`), one per line or comma-separated; placeholders as in `tag-template`.',
      multiline: true,
      parse: extraTags,
    },
    images: {
      description:
        'Images to build, one per line or comma-separated, among `frontend`, `backend` and `codeasdata`; with `backends`, `backend` builds every backend, and `backend:<name>` one of them alone (a matrix leg). The outputs of the others stay empty.',
      default: 'frontend,backend',
      multiline: true,
      parse: images,
    },
    codeasdata: {
      description:
        'Also build the code-as-data image (adds `codeasdata` to `images`). Deploying it updates the composition database, which can briefly interrupt it.',
      ...flag('false'),
    },
    push: {
      description:
        "Push the images after building them, with the branch's moving tag `<image>:<branch>` too (false: build only; no digests).",
      ...flag('true'),
    },
    'reuse-unchanged': {
      description:
        "Do not build an image whose inputs did not change: when the image that the branch's moving tag (then the default branch's) names in the registry has this run's fingerprint (the Dockerfile, read as BuildKit reads it, the files its `COPY` lines read, its base images' digests, the build arguments, the labels but `created` and `revision`, the platform, and the builder where it reads the Dockerfile otherwise than BuildKit) and the CI's own record (the Actions cache, the GitLab template's `cache:`) or a signature under `signing-key` says that the default branch built it, that manifest gets this run's tags instead. `false` builds every image (still labelled and recorded for later runs).",
      ...flag('true'),
    },
    branches: {
      description:
        'Branches to build on, one per line or comma-separated, `*` matching any characters. Default: the default branch (`main` when unknown). Never on pull or merge requests.',
      multiline: true,
      parse: branches,
    },
    'docker-folder': {
      description:
        'Folder of `frontend.Dockerfile`, `backend.Dockerfile` and `codeasdata.Dockerfile`, relative to `working-directory`.',
      default: 'docker',
      parse: relativeFolder('folder of the Dockerfiles'),
    },
    'frontend-sources': {
      description:
        'Frontend build output passed as the `SOURCES_PATH` build argument, relative to `working-directory`.',
      default: 'dist/web',
      parse: relativeFolder('frontend build output folder'),
    },
    'backend-sources': {
      description:
        'Backend build output passed as the `SOURCES_PATH` build argument, relative to `working-directory`. Default `dist/node`. Not with `backends`, where each backend names its own.',
      parse: optionalRelativeFolder('backend build output folder'),
    },
    backends: {
      description:
        "Several backends, each with a code base of its own, built into an image of its own: a JSON or YAML list of `{name, sources, dockerfile}`. `name` is the backend's name as the platform knows it, which deploy rules target (lowercase letters, digits and `-`, starting and ending with a letter or digit, at most 63 characters; each once); `sources` its build output, its `SOURCES_PATH`, relative to `working-directory`; `dockerfile` (optional) its Dockerfile, relative to `working-directory`, default `<docker-folder>/backend.Dockerfile`. Each image is `<backend-image-name>-<name>`. Empty: one backend, from `backend-sources`. Not with `backend-sources`.",
      multiline: true,
      parse: backends,
    },
    'codeasdata-sources': {
      description:
        'Code-as-data build output passed as the `SOURCES_PATH` build argument, relative to `working-directory`.',
      default: 'dist/codeAsData',
      parse: relativeFolder('code-as-data build output folder'),
    },
    'draw-version': {
      description: `Value of the \`${DRAW_VERSION_LABEL}\` label (the version of Draw, the design tool). Default, first found: \`node_modules/@olympeio/draw/package.json\` (\`version\`), the lock file npm installed from (\`npm-shrinkwrap.json\`, else \`package-lock.json\`: \`${LOCK_ENTRY}\`; committed, or handed over by the build job), \`<codeasdata-sources>/version.json\` (\`drawVersion\`, written by \`buildCodeAsData\`), then \`<frontend-sources>/version.json\` (\`version\`; the official template overwrites it with the project version, hence a warning). The log names the file used.`,
      parse: drawVersion,
    },
    'allow-undeclared-sources-path': {
      description:
        "Build even when it cannot be read whether a Dockerfile's base image declares `SOURCES_PATH` (`ONBUILD ARG SOURCES_PATH`), such as a base image in a registry the runner cannot reach. A Dockerfile that uses `$SOURCES_PATH` and that nothing declares it in is always refused: `$SOURCES_PATH` would expand to nothing and copy the whole project into the image.",
      ...flag('false'),
    },
    'build-args': {
      description:
        'Extra build arguments for every image, one `NAME=value` per line (`SOURCES_PATH` is set per image). A build argument stays in the image: `docker history` shows it to anyone who can pull the image. Pass tokens and passwords with `build-secrets` instead; a name that looks secret (`NPM_TOKEN`, `API_KEY`, `PASSWORD`) is warned about.',
      multiline: true,
      secret: secretLookingArguments,
      parse: buildArgs,
    },
    'build-secrets': {
      description:
        'Secrets for the builds, one `ID=value` per line (keep them in a secret; on GitLab, the `BUILD_SECRETS` CI/CD variable). Each is given to the builder as `--secret id=ID` and read in a Dockerfile with `RUN --mount=type=secret,id=ID` (the file `/run/secrets/ID`, during that step only): it stays out of the image, its history and the command line. Needs BuildKit (not `DOCKER_BUILDKIT=0`) or Buildah.',
      secret: buildSecretParts,
      multiline: true,
      parse: buildSecrets,
    },
    builder: {
      description:
        'What builds the images: `docker` (an engine with BuildKit), `buildah` (no daemon, no privileges: for runners without Docker; `--storage-driver vfs` and `--isolation chroot` unless `STORAGE_DRIVER` and `BUILDAH_ISOLATION` say otherwise), or `auto`: Docker when an engine answers, else Buildah when it is on `PATH`. When `DOCKER_HOST` is set, `auto` means Docker: its engine is waited for (60 s, a Docker-in-Docker service may still be starting), and the step fails if it does not answer.',
      ...choiceWithDefault(BUILDER_SETTINGS, 'auto'),
    },
    platform: {
      description: 'Target platform of the images, such as `linux/amd64` (one only).',
      parse: platform,
    },
    'cache-from': {
      description:
        'Images to use as build cache (`--cache-from`), one per line. Docker only: Buildah takes a repository of its own there, and these are not given to it.',
      multiline: true,
      parse: cacheFrom,
    },
    'signing-key': {
      description:
        "Private key that signs every image pushed or re-tagged, as `cosign sign --key` would (keep it in a secret that only the default branch's jobs get): the `cosign.key` that `cosign generate-key-pair` writes, or an unencrypted ECDSA P-256 key in PEM. Checked by `cosign verify --key cosign.pub`, by deploy's `verify-signatures`, and by a cluster's admission policy. Empty: nothing is signed.",
      secret: signingKeyParts,
      multiline: true,
      parse: signingKey,
    },
    'signing-key-password': {
      description:
        'Password of `signing-key` when it is encrypted (the `COSIGN_PASSWORD` it was made with; keep it in a secret).',
      secret: true,
      ...text,
    },
    'working-directory': {
      description: 'The project root: the build context, relative to the workspace (or absolute).',
      default: '.',
      parse: workingDirectory,
    },
    'check-only': CHECK_ONLY,
  },
  outputs: {
    'frontend-image': {
      description:
        'Reference of the frontend image built (`<registry>/<name>:<tag>`); empty when it was not built.',
    },
    'backend-image': {
      description:
        'Reference of the backend image built; empty when it was not built, and with `backends` (see `backend-images`).',
    },
    'backend-images': {
      description:
        "Reference of every backend image built, one per line (comma-separated in GitLab's dotenv report): the one backend, or each of `backends` in their order.",
      list: true,
    },
    'codeasdata-image': {
      description: 'Reference of the code-as-data image; empty when it was not built.',
    },
    'frontend-digest': {
      description: 'Manifest digest of the pushed frontend image (`sha256:…`).',
    },
    'backend-digest': {
      description: 'Manifest digest of the pushed backend image; empty with `backends`.',
    },
    'codeasdata-digest': { description: 'Manifest digest of the pushed code-as-data image.' },
    images: {
      description:
        "JSON list of the images built: `[{kind, reference, references, digest, size}]` (size in bytes, unpacked, as `docker image ls` counts it), each of `backends` with its `name` too; `[]` when skipped. Deploy's `built-images` takes it as it is.",
    },
    version: {
      description: `The project's version, the images' \`${OCI_LABELS.version}\` label: the \`version\` of \`<frontend-sources>/version.json\`, else of the project's \`package.json\`; empty when neither has one. Deploy's \`expected-version\` defaults to that label.`,
    },
    reused: {
      description:
        'JSON list of the images not rebuilt because nothing that goes into them changed, as `images` names them (`["backend"]`, `["backend:api"]`); their outputs name the earlier image\'s digest. `[]` when none.',
    },
    matrix: {
      description:
        'JSON list of the images this step builds with its inputs, one `images` value each (`["frontend","backend:api","backend:worker"]`): what a fan-out gives its matrix, one leg per image. Set by `check-only` too; `[]` when skipped.',
    },
    skipped: {
      description:
        '`true` when nothing was built because of the branch or the event (the step still succeeds), else `false`; with `check-only`, whether a run would be skipped.',
    },
  },
} as const satisfies ActionDefinition

export type BuildImagesInputName = keyof typeof buildImagesDefinition.inputs
export type BuildImagesOutputName = keyof typeof buildImagesDefinition.outputs
