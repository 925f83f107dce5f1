#!/usr/bin/env bash
# Checks that third_party/hashicorp/raft is hashicorp/raft v1.7.3 with
# the patches beside it applied in order, and nothing else (.ci/run runs
# it). Needs the module proxy (or v1.7.3 in the module cache), git and diff.
set -euo pipefail
cd "$(dirname "$0")/hashicorp"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The release's hash as go.sum pinned it before the replace; checked here
# rather than by the checksum database, which a CI machine may not reach.
sum='h1:DxpEqZJysHN0wK+fviai5mFcSYsCkNpFUl1xpAW8Rbo='
(cd "$tmp" && GONOSUMDB=github.com/hashicorp/raft go mod download -json github.com/hashicorp/raft@v1.7.3) > "$tmp/dl.json"
dir=$(sed -n 's/.*"Dir": "\(.*\)".*/\1/p' "$tmp/dl.json")
got=$(sed -n 's/.*"Sum": "\(.*\)".*/\1/p' "$tmp/dl.json")
if [ -z "$dir" ] || [ "$got" != "$sum" ]; then
  echo "third_party/verify.sh: hashicorp/raft v1.7.3 not downloaded, or its hash $got is not $sum" >&2
  cat "$tmp/dl.json" >&2
  exit 1
fi
cp -r "$dir" "$tmp/raft" && chmod -R u+w "$tmp/raft"
for p in raft-parallel-leader-log.patch raft-removed-peer-last-entry.patch; do
  (cd "$tmp/raft" && git apply -p1 "$OLDPWD/$p")
done
if ! diff -r "$tmp/raft" raft > "$tmp/diff"; then
  echo "third_party/hashicorp/raft differs from v1.7.3 with its patches applied:" >&2
  head -40 "$tmp/diff" >&2
  exit 1
fi
echo "third_party/hashicorp/raft is v1.7.3 with its patches"
