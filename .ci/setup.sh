#!/usr/bin/env bash
# Installs and starts what the test suites use on a fresh Debian machine (run as root): a Docker
# engine (and the registry, htpasswd and busybox the tests build on), Buildah with the unprivileged
# user it runs as, cosign, git's http-backend, rsync, the tools gitlab-ci-local needs, and
# mmdebstrap for the job image's Debian base. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
# Checked first, so that a machine without it fails in a second rather than after the installs.
# npm ci, npx in the GitLab jobs and the "node20" bundle runs use the machine's Node.js.
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null &&
  command -v npm >/dev/null ||
  { echo "Node.js 20 or newer, with npm, is needed on PATH: install it first (Debian bookworm's own nodejs is 18)" >&2; exit 1; }
bash .ci/setup-docker.sh
bash .ci/setup-buildah.sh
bash .ci/setup-cosign.sh
bash .ci/setup-gitlab.sh
bash .ci/setup-job-image.sh
# The snapshot suites run the toolkit as the step does as root: in a cgroup of its own, which needs
# a writable cgroup2 hierarchy. Most Linux machines mount one; mount it where none is.
if ! grep -q ' - cgroup2 ' /proc/self/mountinfo; then
  mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 none /sys/fs/cgroup/unified
fi
echo "setup: cgroup2 at $(awk '/ - cgroup2 /{print $5; exit}' /proc/self/mountinfo)"
test -x /usr/lib/git-core/git-http-backend || { echo "git http-backend is missing (package git)" >&2; exit 1; }
