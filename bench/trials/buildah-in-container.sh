#!/usr/bin/env bash
# The trial of docs/self-hosting.md, "Buildah inside a container": does bookworm's Buildah build
# inside a container that Docker runs unprivileged, and with which options? Not a test (it needs
# the Debian mirror and a few minutes): run it by hand, as root, on a machine with Docker.
# Usage: bench/trials/buildah-in-container.sh <registry host:port> <user> <password>
#   The registry must hold <host>/olympeio/frontend-base:latest (a base with /etc/passwd naming
#   nginx, as test/helpers/docker-env.ts makes them).
set -euo pipefail
registry=$1 user=$2 password=$3
work=$(mktemp -d /tmp/buildah-trial-XXXXXX)
trap 'rm -rf "$work"; docker image rm buildah-trial:bookworm >/dev/null 2>&1 || true' EXIT
mmdebstrap --variant=apt --include=buildah,uidmap \
  --customize-hook='chroot "$1" useradd --create-home --shell /bin/sh builder' \
  bookworm "$work/root.tar" http://deb.debian.org/debian
docker import "$work/root.tar" buildah-trial:bookworm >/dev/null
mkdir -p "$work/ctx/dist"
echo hello >"$work/ctx/dist/index.html"
printf 'FROM %s/olympeio/frontend-base:latest\nARG SOURCES_PATH\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\nRUN ls -ln /usr/share/nginx/html\n' \
  "$registry" >"$work/ctx/Dockerfile"
printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' "$registry" >"$work/ctx/registries.conf"
chmod -R a+rX "$work"
try() {
  local label=$1
  shift
  echo "== $label"
  docker run --rm --network host -v "$work/ctx:/ctx:ro" -e CONTAINERS_REGISTRIES_CONF=/ctx/registries.conf \
    "$@" buildah-trial:bookworm sh -c "cd /tmp && buildah --storage-driver vfs bud --isolation chroot \
      --creds '$user:$password' --build-arg SOURCES_PATH=dist -f /ctx/Dockerfile -t trial:1 /ctx 2>&1 | tail -3" || true
}
try 'root, Docker defaults'
try 'user, Docker defaults' --user builder
try 'root, seccomp=unconfined' --security-opt seccomp=unconfined
try 'user, seccomp=unconfined' --user builder --security-opt seccomp=unconfined
try 'root, SYS_ADMIN' --cap-add SYS_ADMIN
try 'user, SYS_ADMIN' --user builder --cap-add SYS_ADMIN
