#!/usr/bin/env bash
# Checks that the copies under third_party/ are their releases with the
# patches beside them applied in order, and nothing else (.ci/run runs
# it): hashicorp/raft v1.7.3, and yuin/gopher-lua v1.1.2 made a package
# of this module (see third_party/README.md). Needs the module proxy (or
# the releases in the module cache), git and diff.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# fetch MODULE VERSION SUM: copies the release to $tmp/src after checking
# its hash against the one go.sum pinned (checked here rather than by the
# checksum database, which a CI machine may not reach).
fetch() {
  (cd "$tmp" && GONOSUMDB="$1" go mod download -json "$1@$2") > "$tmp/dl.json"
  local dir got
  dir=$(sed -n 's/.*"Dir": "\(.*\)".*/\1/p' "$tmp/dl.json")
  got=$(sed -n 's/.*"Sum": "\(.*\)".*/\1/p' "$tmp/dl.json")
  if [ -z "$dir" ] || [ "$got" != "$3" ]; then
    echo "third_party/verify.sh: $1 $2 not downloaded, or its hash $got is not $3" >&2
    cat "$tmp/dl.json" >&2
    exit 1
  fi
  rm -rf "$tmp/src" && cp -r "$dir" "$tmp/src" && chmod -R u+w "$tmp/src"
}

# check COPY PATCH...: applies the patches to $tmp/src in order and
# compares the result with COPY.
check() {
  local copy=$1; shift
  for p in "$@"; do
    (cd "$tmp/src" && git apply -p1 "$OLDPWD/$p")
  done
  if ! diff -r "$tmp/src" "$copy" > "$tmp/diff"; then
    echo "third_party/$copy differs from its release with its patches applied:" >&2
    head -40 "$tmp/diff" >&2
    exit 1
  fi
  echo "third_party/$copy is its release with its patches"
}

fetch github.com/hashicorp/raft v1.7.3 'h1:DxpEqZJysHN0wK+fviai5mFcSYsCkNpFUl1xpAW8Rbo='
check hashicorp/raft hashicorp/raft-parallel-leader-log.patch hashicorp/raft-removed-peer-last-entry.patch

# gopher-lua becomes a package of this module: without its own module
# files, command, tools and tests, its imports renamed.
fetch github.com/yuin/gopher-lua v1.1.2 'h1:yF/FjE3hD65tBbt0VXLE13HWS9h34fdzJmrWRXwobGA='
(cd "$tmp/src" && rm -rf cmd _tools _glua-tests _lua5.1-tests go.mod go.sum Makefile ./*_test.go &&
  grep -rl 'github.com/yuin/gopher-lua' --include='*.go' . |
  xargs sed -i 's#"github.com/yuin/gopher-lua#"github.com/lockkv/lockkv/third_party/yuin/gopher-lua#g')
check yuin/gopher-lua yuin/gopher-lua-vet.patch yuin/gopher-lua-readonly-tables.patch
