package engine_test

import (
	"fmt"
	"testing"
)

// Under an LFU maxmemory-policy every key access draws from the random
// numbers of the entry being applied, which later choices of the entry
// (SPOP, SRANDMEMBER, RANDOMKEY...) draw from too. What decides whether
// an access draws must then be the same on every node: here the leader's
// own reads (which run on the leader alone) saturate a key's counter
// there, and CLIENT NO-TOUCH is the leader's client's, which followers
// apply as their internal client.
func TestApplyLFUDrawsAlikeOnEveryNode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(ec *engineCluster)
	}{
		{"leader's reads saturate the counter", func(ec *engineCluster) {
			for i := 0; i < 300; i++ {
				ec.do("GET", "k")
			}
			if got := ec.do("OBJECT", "FREQ", "k"); got != ":255\r\n" {
				t.Fatalf("OBJECT FREQ after the reads: %q", got)
			}
		}},
		{"the leader's client is NO-TOUCH", func(ec *engineCluster) {
			ec.do("CLIENT", "NO-TOUCH", "ON")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ec := newEngineCluster(t, 1)
			ec.do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
			ec.do("CONFIG", "SET", "lfu-log-factor", "0")
			ec.do("SET", "k", "v")
			args := []string{"SADD", "s"}
			for i := 0; i < 64; i++ {
				args = append(args, fmt.Sprintf("m%d", i))
			}
			ec.do(args...)
			ec.same("after the setup writes")
			tc.setup(ec)
			for i := 0; i < 8; i++ {
				ec.do("MULTI")
				ec.do("GET", "k")
				ec.do("SPOP", "s")
				ec.do("EXEC")
				ec.same(fmt.Sprintf("after transaction %d", i))
			}
		})
	}
}
