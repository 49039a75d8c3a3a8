#!/usr/bin/env bash
# Installs and starts what the test suites use on a fresh Debian machine (run as root): a Docker
# engine (and the registry, htpasswd and busybox the tests build on), git's http-backend, rsync and
# the tools gitlab-ci-local needs. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
bash .ci/setup-docker.sh
if [ -f .ci/setup-gitlab.sh ]; then bash .ci/setup-gitlab.sh; fi
test -x /usr/lib/git-core/git-http-backend || { echo "git http-backend is missing (package git)" >&2; exit 1; }
# npm ci, npx in the GitLab jobs and the "node20" bundle runs use the machine's Node.js.
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null &&
  command -v npm >/dev/null ||
  { echo "Node.js 20 or newer, with npm, is needed on PATH: install it first (Debian bookworm's own nodejs is 18)" >&2; exit 1; }
