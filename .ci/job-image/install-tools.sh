#!/bin/sh
# Installs what the job image needs besides Node.js on Debian bookworm: git and CA certificates,
# Buildah with uidmap (bookworm's), and the Docker CLI with its buildx plugin from trixie, since
# bookworm's docker.io is 20.10, below Olympe's Docker 24, and has no buildx. The trixie suite is
# added from the image's own Debian source with a pin priority of 100, so that only the packages
# asked for with `-t trixie` come from it. DEBIAN_MIRROR (such as `http://apt.example.internal`),
# for a network without Internet access: a host that serves what deb.debian.org serves, under the
# same paths (/debian, /debian-security), which then replaces it (and security.debian.org) in the
# apt sources. Run as root;
# idempotent: a root that holds the packages downloads nothing.
set -eu

BOOKWORM_PACKAGES='ca-certificates git buildah uidmap'
TRIXIE_PACKAGES='docker-cli docker-buildx'
SOURCES_DIR=/etc/apt/sources.list.d

missing() {
  for package in "$@"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -qx 'install ok installed' ||
      printf '%s\n' "$package"
  done
}

# The image's own Debian source (its mirror and keyring) with the suite renamed: the first
# stanza of a deb822 file, or else the first bookworm line of sources.list.
add_trixie() {
  [ ! -s "$SOURCES_DIR/trixie.sources" ] && [ ! -s "$SOURCES_DIR/trixie.list" ] || return 0
  deb822=$(grep -l '^Suites:.*bookworm' "$SOURCES_DIR"/*.sources 2>/dev/null | head -n 1 || true)
  if [ -n "$deb822" ]; then
    awk '/^Types:/{p=1} p' "$deb822" | sed -n '1,/^$/p' |
      sed 's/^Suites:.*/Suites: trixie/' >"$SOURCES_DIR/trixie.sources"
  elif grep -qsE '^deb .* bookworm ' /etc/apt/sources.list; then
    grep -E '^deb .* bookworm ' /etc/apt/sources.list | head -n 1 |
      sed 's/ bookworm / trixie /' >"$SOURCES_DIR/trixie.list"
  else
    echo "install-tools.sh: no bookworm source to derive the trixie suite from" >&2
    exit 1
  fi
  printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' >/etc/apt/preferences.d/trixie-pin
}

bookworm=$(missing $BOOKWORM_PACKAGES)
trixie=$(missing $TRIXIE_PACKAGES)
if [ -z "$bookworm$trixie" ]; then
  echo 'install-tools.sh: every package is installed already'
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "${DEBIAN_MIRROR:-}" ]; then
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*; do
    [ ! -f "$file" ] || sed -i "s#https\{0,1\}://\(deb\|security\)\.debian\.org#${DEBIAN_MIRROR%/}#g" "$file"
  done
fi
add_trixie
apt-get update
[ -z "$bookworm" ] || apt-get install -y --no-install-recommends $bookworm
[ -z "$trixie" ] || apt-get install -y --no-install-recommends -t trixie $trixie
apt-get clean
rm -rf /var/lib/apt/lists/*
