#!/usr/bin/env bash
# What a new user's Go test that embeds one lockkv server costs: a
# throwaway module in a temporary directory whose only test is the
# README's "Embed in Go tests" example (go-redis against lockkv.RunT,
# FastForward past a lease), with lockkv replaced by this checkout.
#
#   bash bench/embedgraph.sh [checkout]    (default: this one)
#
# Prints:
#   modules in the graph   go list -m all | wc -l   (the user's module included)
#   module sources fetched go.sum lines without /go.mod (zips go mod tidy downloads)
#   packages built         go list -deps -test . | wc -l (standard library included)
#   non-standard packages  the same, without the standard library, lockkv and the test
#   heavy packages         Raft, its stores, bbolt, etcd, Prometheus among them (want 0)
# It needs the Go module proxy (go mod tidy); the checksum database is
# not consulted (GOSUMDB=off: the versions are lockkv's own go.sum's).
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cat > go.mod <<EOM
module example.com/embeduser

go $(sed -n 's/^go //p' "$repo/go.mod")

require github.com/lockkv/lockkv v0.0.0

replace github.com/lockkv/lockkv => $repo
EOM
cat > checkout_test.go <<'EOM'
package embeduser

import (
	"context"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/redis/go-redis/v9"
)

func TestCheckout(t *testing.T) {
	srv := lockkv.RunT(t) // real server, free port, closed at test end
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	ctx := context.Background()
	if ok, err := rdb.SetNX(ctx, "lock:order:42", "me", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	srv.Clock().FastForward(31 * time.Second) // the lease is gone now
	if n, err := rdb.Exists(ctx, "lock:order:42").Result(); err != nil || n != 0 {
		t.Fatalf("after the lease: %v %v", n, err)
	}
}
EOM
export GOFLAGS=-mod=mod GOSUMDB=off GOWORK=off
go mod tidy
go test -count=1 . >/dev/null
pkgs=$(go list -deps -test .)
nonstd=$(echo "$pkgs" | awk -F/ '$1 ~ /\./' | grep -v '^github.com/lockkv/lockkv\|^example.com/')
echo "modules in the graph:   $(go list -m all | wc -l)"
echo "module sources fetched: $(grep -vc '/go.mod ' go.sum)"
echo "packages built:         $(echo "$pkgs" | wc -l)"
echo "non-standard packages:  $(echo "$nonstd" | wc -l)"
echo "heavy packages:         $(echo "$nonstd" | grep -c 'hashicorp\|raft\|bbolt\|boltdb\|etcd\|prometheus' || true)"
