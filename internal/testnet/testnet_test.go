package testnet

import (
	"net"
	"testing"
)

// TestFreeAddrNeverRepeats: addresses are not handed out twice, even when
// each is bound and closed before the next is asked for (the kernel's port
// 0 would give the same port back), and they are below the ephemeral range.
func TestFreeAddrNeverRepeats(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		addr := FreeAddr(t)
		if seen[addr] {
			t.Fatalf("%s handed out twice", addr)
		}
		seen[addr] = true
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		ln.Close()
		if p := FreePort(t); p < lo || p >= hi {
			t.Fatalf("port %d outside [%d, %d)", p, lo, hi)
		}
	}
}
