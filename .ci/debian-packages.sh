# Debian packages for the setup scripts, which source this file after defining log() and die():
# each installs only what is missing, so that a second run only checks.

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == 'install ok installed' ]]
}

# Stale lists can point at files the mirror no longer has: refresh once and retry.
apt_install() {
  if ! apt-get install -y --no-install-recommends "$@"; then
    log 'install failed, refreshing package lists and retrying'
    apt-get update
    apt-get install -y --no-install-recommends "$@"
  fi
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

# The packages named that are not installed yet, installed (as root), without their recommends.
install_missing() {
  local -a missing=()
  local pkg
  for pkg in "$@"; do is_installed "$pkg" || missing+=("$pkg"); done
  if ((${#missing[@]} == 0)); then
    log "already installed: $*"
    return
  fi
  ((EUID == 0)) || die "installing ${missing[*]} needs root"
  log "installing: ${missing[*]}"
  if lists_lack_candidates "${missing[@]}"; then apt-get update; fi
  apt_install "${missing[@]}"
}
