#!/usr/bin/env bash
# Installs cosign for the signature suites: Debian trixie's cosign 2.5 (bookworm has none), one
# package with no daemon, from the trixie suite that setup-docker.sh adds with a pin priority of
# 100 (only what is asked for with `-t trixie` comes from it). The suites use it offline: keys,
# `cosign sign --tlog-upload=false`, `cosign verify --insecure-ignore-tlog` against a loopback
# registry. Idempotent: a second run only prints the version.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

readonly SUITE=trixie
log() { printf 'setup-cosign: %s\n' "$*" >&2; }

if command -v cosign >/dev/null 2>&1; then
  log "cosign $(dpkg-query -W -f='${Version}' cosign 2>/dev/null || echo '(not from a package)') already installed"
  exit 0
fi
((EUID == 0)) || { log 'ERROR: installing cosign needs root'; exit 1; }
# The suite is there once setup-docker.sh installed the engine from it; a machine whose own engine
# was current has it only when this adds it.
if ! compgen -G "/etc/apt/sources.list.d/$SUITE.*" >/dev/null; then
  bash "$(dirname "$0")/setup-docker.sh" --add-suite-only
fi
if ! apt-cache madison cosign 2>/dev/null | grep -q " $SUITE/"; then apt-get update; fi
apt-get install -y --no-install-recommends -t "$SUITE" cosign
log "cosign $(dpkg-query -W -f='${Version}' cosign 2>/dev/null || echo '(not from a package)') installed"
