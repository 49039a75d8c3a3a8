#!/usr/bin/env bash
# Installs what the suites that build without Docker need: Debian bookworm's Buildah (1.28) with
# uidmap (newuidmap and newgidmap, which let an unprivileged user map the ids of an image), and
# the user they run it as, OLYMPE_ROOTLESS_USER: not root, in no group that can reach the Docker
# socket, with subordinate uid and gid ranges in /etc/subuid and /etc/subgid, as on a runner
# without privileges. Idempotent: a second run only checks.
set -euo pipefail

readonly PACKAGES=(buildah uidmap)
readonly ROOTLESS_USER="${OLYMPE_ROOTLESS_USER:-olympe-builder}"
readonly SUBID_COUNT=65536
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup-buildah: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

source "$(dirname "$0")/debian-packages.sh"

# The first free range after every range /etc/subuid (or subgid) already gives.
next_range_start() {
  [[ -s "$1" ]] || { echo 100000; return; }
  awk -F: 'BEGIN { end = 100000 } { if ($2 + $3 > end) end = $2 + $3 } END { print end }' "$1" 2>/dev/null ||
    echo 100000
}

ensure_user() {
  if ! id "$ROOTLESS_USER" >/dev/null 2>&1; then
    ((EUID == 0)) || die "creating the user $ROOTLESS_USER needs root"
    useradd --create-home --shell /bin/sh "$ROOTLESS_USER"
    log "created the user $ROOTLESS_USER"
  fi
  local file start
  for file in /etc/subuid /etc/subgid; do
    if grep -q "^$ROOTLESS_USER:" "$file" 2>/dev/null; then continue; fi
    start="$(next_range_start "$file")"
    if [[ "$file" == /etc/subuid ]]; then
      usermod --add-subuids "$start-$((start + SUBID_COUNT - 1))" "$ROOTLESS_USER"
    else
      usermod --add-subgids "$start-$((start + SUBID_COUNT - 1))" "$ROOTLESS_USER"
    fi
    log "gave $ROOTLESS_USER subordinate ids $start-$((start + SUBID_COUNT - 1)) in $file"
  done
  # The suites prove that Buildah builds without Docker: the user must not reach its socket.
  if id -nG "$ROOTLESS_USER" | tr ' ' '\n' | grep -qx docker; then
    die "$ROOTLESS_USER is in the docker group, so it can reach the Docker socket"
  fi
}

report() {
  log "$(buildah --version)"
  # A first command as the user: buildah re-executes itself in a user namespace through uidmap.
  local home
  home="$(getent passwd "$ROOTLESS_USER" | cut -d: -f6)"
  if ! runuser -u "$ROOTLESS_USER" -- env -i HOME="$home" PATH=/usr/bin:/bin \
    buildah --storage-driver vfs info --format '{{.host.os}}/{{.host.arch}}' >/dev/null; then
    die "buildah does not run as $ROOTLESS_USER (check /etc/subuid, /etc/subgid and uidmap)"
  fi
  log "buildah runs rootless as $ROOTLESS_USER ($(id -u "$ROOTLESS_USER"))"
}

# Bookworm's: the trixie pin of setup-docker.sh keeps them there. None of the recommends: chroot
# isolation needs no runtime, the vfs driver no fuse-overlayfs.
install_missing "${PACKAGES[@]}"
ensure_user
report
