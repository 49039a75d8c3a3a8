#!/usr/bin/env bash
# `bash .ci/move-major-tag.sh v1.2.3 [remote]`: points the major tag (v1) at release v1.2.3 and
# pushes it, so that `uses: <owner>/olympe-deploy-actions@v1` runs the newest 1.x release. A
# release that is not the newest of its major (a fix to 1.3 after 1.4.0 exists) leaves the major
# tag where it is. The major tag is the only ref this replaces; every release tag stays put.
set -euo pipefail
tag="${1:-}"
remote="${2:-origin}"
if [[ ! "$tag" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]]; then
  echo "Tag '$tag' is not a release tag: expected 'v<major>.<minor>.<patch>', such as 'v1.2.3'." >&2
  exit 2
fi
major="v${BASH_REMATCH[1]}"
newest="$(git tag --list "$major.*" | grep -E "^$major\.[0-9]+\.[0-9]+$" | sort -V | tail -n 1)"
if [[ "$newest" != "$tag" ]]; then
  echo "$major stays at $newest: $tag is not the newest $major.x release."
  exit 0
fi
commit="$(git rev-parse "$tag^{commit}")"
git tag --force "$major" "$commit" >/dev/null
# `+` replaces the remote's major tag, the one ref a release moves.
git push --quiet "$remote" "+refs/tags/$major:refs/tags/$major"
echo "$major now points at $tag ($commit)."
