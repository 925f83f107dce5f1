package stablehash

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

// TestHashIsFNV1a: Hash is hash/fnv's 64-bit FNV-1a of the key's
// little-endian bytes and the member, mixed, and its values never change.
func TestHashIsFNV1a(t *testing.T) {
	for _, tc := range []struct {
		key uint64
		m   string
	}{
		{0, ""}, {0, "a"}, {1, "member"}, {0xfedcba9876543210, "x\x00y"}, {1 << 63, "12345"},
	} {
		h := fnv.New64a()
		h.Write(binary.LittleEndian.AppendUint64(nil, tc.key))
		h.Write([]byte(tc.m))
		if got, want := Hash(tc.key, []byte(tc.m)), mix(h.Sum64()); got != want {
			t.Errorf("Hash(%#x, %q) = %#x, mixed FNV-1a %#x", tc.key, tc.m, got, want)
		}
	}
	// Pinned: a cluster's nodes must agree across versions.
	if got := Hash(42, []byte("lock")); got != pinned {
		t.Fatalf("Hash(42, \"lock\") = %#x, was %#x", got, pinned)
	}
}

// pinned changed once, when the mixer was added (FNV-1a alone was biased):
// nodes of earlier versions cannot share a log with this one.
const pinned uint64 = 0x35dd9b236c517325
