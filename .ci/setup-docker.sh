#!/usr/bin/env bash
# Installs and starts what the build-images tests need: a Docker daemon (legacy builder, no
# buildx), the CNCF distribution registry, htpasswd and busybox for locally made base images.
# Idempotent: reinstalls nothing that is present and reuses a daemon that already answers.
# The registry is not started here: every test starts its own on a free loopback port.
set -euo pipefail

readonly PACKAGES=(docker.io docker-registry apache2-utils busybox-static rsync curl)
readonly DOCKERD_LOG=/tmp/dockerd.log
readonly DOCKERD_PIDFILE=/var/run/docker.pid
readonly WAIT_SECONDS=60
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-docker: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

daemon_answers() { docker info >/dev/null 2>&1; }

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == 'install ok installed' ]]
}

missing_packages() {
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    # A machine whose engine already answers (a GitHub runner's docker-ce) keeps its own engine.
    if [[ "$pkg" == docker.io ]] && daemon_answers; then continue; fi
    is_installed "$pkg" || printf '%s\n' "$pkg"
  done
}

# An image without package lists (or with lists that predate a package) needs an update first.
lists_lack_candidates() {
  local pkg candidate
  compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || return 0
  for pkg in "$@"; do
    candidate="$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
    [[ -n "$candidate" && "$candidate" != '(none)' ]] || return 0
  done
  return 1
}

install_packages() {
  local -a missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]} == 0)); then
    log 'packages already installed'
    return
  fi
  log "installing: ${missing[*]}"
  ((EUID == 0)) || die 'installing packages needs root'
  if lists_lack_candidates "${missing[@]}"; then apt-get update; fi
  # Stale lists can point at files the mirror no longer has: refresh once and retry.
  if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
    log 'install failed, refreshing package lists and retrying'
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

daemon_process_alive() {
  [[ -s "$DOCKERD_PIDFILE" ]] && kill -0 "$(cat "$DOCKERD_PIDFILE")" 2>/dev/null
}

start_daemon() {
  if daemon_answers; then
    log 'docker daemon already answers'
    return
  fi
  if daemon_process_alive; then
    log "dockerd (pid $(cat "$DOCKERD_PIDFILE")) is starting, waiting for it"
  else
    command -v dockerd >/dev/null || die 'dockerd not found after install'
    log "starting dockerd, log in $DOCKERD_LOG"
    # setsid: the daemon must outlive this script and the process group of whoever ran it.
    setsid dockerd >"$DOCKERD_LOG" 2>&1 </dev/null &
  fi
  wait_for_daemon
}

wait_for_daemon() {
  local deadline=$((SECONDS + WAIT_SECONDS))
  until daemon_answers; do
    if ((SECONDS >= deadline)); then
      log "docker info did not answer within ${WAIT_SECONDS}s; last lines of $DOCKERD_LOG:"
      tail -n 30 "$DOCKERD_LOG" >&2 || true
      die 'docker daemon did not start'
    fi
    sleep 1
  done
  log "docker daemon answers (server $(docker info --format '{{.ServerVersion}}'))"
}

install_packages
start_daemon
