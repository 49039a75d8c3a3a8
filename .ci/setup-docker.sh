#!/usr/bin/env bash
# Installs and starts what the build-images tests need: a Docker engine of the kind users have
# (Docker 24 or newer, building with BuildKit through buildx), the CNCF distribution registry,
# htpasswd (apache2-utils) for the registry's logins, busybox for locally made base images, and
# openssl for the test certificate authorities. Two more tools come with them: rsync, with which
# gitlab-ci-local copies the project into its jobs and their artifacts back (setup-gitlab.sh
# installs it too), and curl, which only `npm run bench` uses (its jq + curl baseline,
# bench/baselines/jq-curl.sh).
#
# Debian bookworm's own docker.io is Engine 20.10 with the legacy builder only, below Olympe's
# Docker 24. Debian trixie's docker.io (26.1) and docker-buildx (0.13) install on bookworm: the
# trixie suite is added with a pin priority of 100, so that only the packages asked for with
# `-t trixie` (and what they need) come from it and everything else stays on bookworm.
#
# Idempotent: reinstalls nothing that is present, reuses a daemon that already answers (and is
# recent enough), and only prints the versions on a second run. A machine whose engine already
# answers with Docker 24+ and buildx (a GitHub runner's docker-ce) keeps its own engine.
# The registry is not started here: every test starts its own on a free loopback port.
set -euo pipefail

readonly ENGINE_PACKAGES=(docker.io docker-buildx)
readonly TOOL_PACKAGES=(docker-registry apache2-utils busybox-static rsync curl openssl)
readonly MIN_ENGINE_MAJOR=24
readonly ENGINE_SUITE=trixie
readonly SOURCES_DIR=/etc/apt/sources.list.d
readonly SUITE_SOURCES="$SOURCES_DIR/$ENGINE_SUITE.sources"
readonly SUITE_PIN="/etc/apt/preferences.d/$ENGINE_SUITE-pin"
readonly DOCKERD_LOG=/tmp/dockerd.log
readonly DOCKERD_PIDFILE=/var/run/docker.pid
readonly WAIT_SECONDS=60
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-docker: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
source "$(dirname "$0")/debian-packages.sh"
need_root() { ((EUID == 0)) || die "$1 needs root"; }

daemon_answers() { docker info >/dev/null 2>&1; }
server_version() { docker version --format '{{.Server.Version}}' 2>/dev/null || true; }
server_major() { local v; v="$(server_version)"; printf '%s' "${v%%.*}"; }
has_buildx() { docker buildx version >/dev/null 2>&1; }

# An engine that answers, is recent enough and has buildx needs nothing from us.
engine_is_current() {
  daemon_answers && has_buildx && [[ "$(server_major)" =~ ^[0-9]+$ ]] &&
    (($(server_major) >= MIN_ENGINE_MAJOR))
}

installed_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# docker.io is current when its packaged version is 24 or newer (bookworm's is 20.10).
engine_package_is_current() {
  local version
  is_installed docker-buildx || return 1
  version="$(installed_version docker.io)"
  [[ "${version%%.*}" =~ ^[0-9]+$ ]] && ((${version%%.*} >= MIN_ENGINE_MAJOR))
}

# The machine's own Debian source (its URIs, mirror and keyring), with the suite renamed: the
# first stanza of debian.sources (deb822), or else the first bookworm line of sources.list.
add_engine_suite() {
  if [[ -s "$SUITE_SOURCES" || -s "$SOURCES_DIR/$ENGINE_SUITE.list" ]]; then
    log "$ENGINE_SUITE suite already configured"
  elif [[ -s "$SOURCES_DIR/debian.sources" ]]; then
    awk '/^Types:/{p=1} p' "$SOURCES_DIR/debian.sources" | sed -n '1,/^$/p' |
      sed "s/^Suites:.*/Suites: $ENGINE_SUITE/" >"$SUITE_SOURCES"
    log "added $SUITE_SOURCES"
  elif grep -qsE '^deb .* bookworm ' /etc/apt/sources.list; then
    grep -E '^deb .* bookworm ' /etc/apt/sources.list | head -n 1 |
      sed "s/ bookworm / $ENGINE_SUITE /" >"$SOURCES_DIR/$ENGINE_SUITE.list"
    log "added $SOURCES_DIR/$ENGINE_SUITE.list"
  else
    die "no Debian source to derive the $ENGINE_SUITE suite from (looked in $SOURCES_DIR/debian.sources and /etc/apt/sources.list)"
  fi
  if [[ ! -s "$SUITE_PIN" ]]; then
    printf 'Package: *\nPin: release n=%s\nPin-Priority: 100\n' "$ENGINE_SUITE" >"$SUITE_PIN"
    log "added $SUITE_PIN (priority 100: nothing comes from $ENGINE_SUITE unless asked for)"
  fi
}

# Whether this run installed a new engine that must replace a daemon already running.
ENGINE_INSTALLED=false

install_engine() {
  if engine_is_current; then
    log "the running engine is current (server $(server_version), buildx present): kept"
    return
  fi
  if engine_package_is_current; then
    log "docker.io $(installed_version docker.io) and docker-buildx already installed"
    return
  fi
  need_root "installing Docker $MIN_ENGINE_MAJOR+ from $ENGINE_SUITE"
  add_engine_suite
  # The new suite's lists are not there yet on the first run.
  if ! apt-cache madison "${ENGINE_PACKAGES[@]}" 2>/dev/null | grep -q " $ENGINE_SUITE/"; then
    apt-get update
  fi
  log "installing from $ENGINE_SUITE: ${ENGINE_PACKAGES[*]}"
  apt_install -t "$ENGINE_SUITE" "${ENGINE_PACKAGES[@]}"
  ENGINE_INSTALLED=true
}

daemon_process_alive() {
  [[ -s "$DOCKERD_PIDFILE" ]] && kill -0 "$(cat "$DOCKERD_PIDFILE")" 2>/dev/null
}

# A daemon of the old engine (started by an earlier version of this script) keeps running the
# old binary: stop the one we started (its pidfile), so that the new engine takes its place.
stop_old_daemon() {
  [[ "$ENGINE_INSTALLED" == true ]] && daemon_process_alive || return 0
  local pid deadline=$((SECONDS + WAIT_SECONDS))
  pid="$(cat "$DOCKERD_PIDFILE")"
  log "stopping the previous dockerd (pid $pid, server $(server_version)) to start the new engine"
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || die "dockerd (pid $pid) did not stop within ${WAIT_SECONDS}s"
    sleep 1
  done
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
    need_root 'starting dockerd'
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
}

# CI logs show which engine and builder the suites ran on; below Olympe's minimum is an error.
report_versions() {
  local major
  log "docker engine (server) $(server_version), client $(docker version --format '{{.Client.Version}}')"
  log "$(docker buildx version 2>&1 || echo 'docker buildx: not installed')"
  major="$(server_major)"
  if ! [[ "$major" =~ ^[0-9]+$ ]] || ((major < MIN_ENGINE_MAJOR)); then
    die "the engine is $(server_version); the spec needs Docker $MIN_ENGINE_MAJOR or newer"
  fi
  has_buildx || die 'docker buildx is missing: docker build would use the legacy builder'
}

# `--add-suite-only`: only the trixie source and its pin, for other packages from it (cosign).
if [[ "${1:-}" == --add-suite-only ]]; then
  need_root "adding the $ENGINE_SUITE suite"
  add_engine_suite
  exit 0
fi

install_engine
install_missing "${TOOL_PACKAGES[@]}"
stop_old_daemon
start_daemon
report_versions
