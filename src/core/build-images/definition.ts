import type { ActionDefinition } from '../definition.js'

export const buildImagesDefinition = {
  id: 'build-images',
  name: 'Olympe build images',
  description:
    'Builds the frontend, backend and code-as-data images an Olympe project asks for (`images`, `codeasdata`) from its docker/ folder, pushes them and outputs their references for the deploy action.',
  inputs: {
    registry: {
      description:
        'Registry host, optionally with a namespace (`ghcr.io/acme`). Default `ghcr.io` on GitHub; required elsewhere (on GitLab, `$CI_REGISTRY`).',
    },
    'registry-username': {
      description: 'User name for `docker login`; give it with `registry-password`, or neither.',
    },
    'registry-password': {
      description:
        'Password or token for `docker login`, passed on stdin (keep it in a secret). Without credentials the existing Docker login is used.',
      secret: true,
    },
    'frontend-image-name': {
      description:
        'Image name of the frontend, without registry or tag. Default `<repository>/frontend`, lowercase.',
    },
    'backend-image-name': {
      description:
        'Image name of the backend, without registry or tag. Default `<repository>/backend`, lowercase.',
    },
    'codeasdata-image-name': {
      description:
        'Image name of the code-as-data image, without registry or tag. Default `<repository>/codeasdata`, lowercase.',
    },
    'tag-template': {
      description:
        'Tag of every image. Placeholders: `{branch}` (made a valid tag: `feature/x` to `feature-x`), `{sha}`, `{short-sha}` (7 characters), `{run-id}`, `{date}` (UTC `YYYYMMDD`).',
      default: '{branch}-{short-sha}',
    },
    'extra-tags': {
      description:
        'More tags for every image (such as `latest`), one per line or comma-separated; placeholders as in `tag-template`.',
      multiline: true,
    },
    images: {
      description:
        'Images to build, one per line or comma-separated, among `frontend`, `backend` and `codeasdata`. The outputs of the others stay empty.',
      default: 'frontend,backend',
      multiline: true,
    },
    codeasdata: {
      description:
        'Also build the code-as-data image (adds `codeasdata` to `images`). Deploying it updates the composition database, which can briefly interrupt it.',
      default: 'false',
      type: 'boolean',
    },
    push: {
      description: 'Push the images after building them (false: build only; no digests).',
      default: 'true',
      type: 'boolean',
    },
    branches: {
      description:
        'Branches to build on, one per line or comma-separated, `*` matching any characters. Default: the default branch (`main` when unknown). Never on pull or merge requests.',
      multiline: true,
    },
    'docker-folder': {
      description:
        'Folder of `frontend.Dockerfile`, `backend.Dockerfile` and `codeasdata.Dockerfile`, relative to `working-directory`.',
      default: 'docker',
    },
    'frontend-sources': {
      description:
        'Frontend build output passed as the `SOURCES_PATH` build argument, relative to `working-directory`.',
      default: 'dist/web',
    },
    'backend-sources': {
      description:
        'Backend build output passed as the `SOURCES_PATH` build argument, relative to `working-directory`.',
      default: 'dist/node',
    },
    'codeasdata-sources': {
      description:
        'Code-as-data build output passed as the `SOURCES_PATH` build argument, relative to `working-directory`.',
      default: 'dist/codeAsData',
    },
    'draw-version': {
      description:
        'Value of the `draw_version` label (the Draw version, spec 1.3). Default, first found: `node_modules/@olympeio/draw/package.json` (`version`), `<codeasdata-sources>/version.json` (`drawVersion`, written by `buildCodeAsData`), then `<frontend-sources>/version.json` (`version`; the official template overwrites it with the project version, hence a warning). The log names the file used.',
    },
    'allow-undeclared-sources-path': {
      description:
        "Build even when it cannot be read whether a Dockerfile's base image declares `SOURCES_PATH` (`ONBUILD ARG SOURCES_PATH`), such as a base image in a registry the runner cannot reach. A Dockerfile that uses `$SOURCES_PATH` and that nothing declares it in is always refused: `$SOURCES_PATH` would expand to nothing and copy the whole project into the image.",
      default: 'false',
      type: 'boolean',
    },
    'build-args': {
      description:
        'Extra build arguments for every image, one `NAME=value` per line (`SOURCES_PATH` is set per image).',
      multiline: true,
    },
    platform: {
      description: 'Target platform of the images, such as `linux/amd64` (one only).',
    },
    'cache-from': {
      description: 'Images to use as build cache (`--cache-from`), one per line.',
      multiline: true,
    },
    'working-directory': {
      description: 'The project root: the build context, relative to the workspace (or absolute).',
      default: '.',
    },
  },
  outputs: {
    'frontend-image': {
      description:
        'Reference of the frontend image built (`<registry>/<name>:<tag>`); empty when it was not built.',
    },
    'backend-image': {
      description: 'Reference of the backend image built; empty when it was not built.',
    },
    'codeasdata-image': {
      description: 'Reference of the code-as-data image; empty when it was not built.',
    },
    'frontend-digest': {
      description: 'Manifest digest of the pushed frontend image (`sha256:…`).',
    },
    'backend-digest': { description: 'Manifest digest of the pushed backend image.' },
    'codeasdata-digest': { description: 'Manifest digest of the pushed code-as-data image.' },
    images: {
      description:
        'JSON list of the images built: `[{kind, reference, references, digest, size}]` (size in bytes, unpacked, as `docker image ls` counts it); `[]` when skipped.',
    },
    skipped: {
      description:
        '`true` when nothing was built because of the branch or the event (the step still succeeds), else `false`.',
    },
  },
} as const satisfies ActionDefinition

export type BuildImagesInputName = keyof typeof buildImagesDefinition.inputs
export type BuildImagesOutputName = keyof typeof buildImagesDefinition.outputs

/** The three image kinds of spec 1, in the order they are reported. */
export const IMAGE_KINDS = ['frontend', 'backend', 'codeasdata'] as const
export type ImageKind = (typeof IMAGE_KINDS)[number]
