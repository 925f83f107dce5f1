package engine

import "testing"

// TestParkKindSets: held is exactly what the old blocked||postponed||waiting
// flags held (RAFT.NODE's deferred reply set waiting), so Conn.Blocked,
// CLIENT LIST's b flag and INFO blocked_clients count the same clients;
// reruns is exactly CLIENT PAUSE and the two replication waits that run
// the command again.
func TestParkKindSets(t *testing.T) {
	held := map[parkKind]bool{parkBlocked: true, parkPaused: true, parkWait: true, parkReply: true}
	reruns := map[parkKind]bool{parkPaused: true, parkReadRound: true, parkBehindExec: true}
	for k := parkNone; int(k) < len(parkNames); k++ {
		if k.held() != held[k] {
			t.Errorf("%s.held() = %v", k, k.held())
		}
		if k.reruns() != reruns[k] {
			t.Errorf("%s.reruns() = %v", k, k.reruns())
		}
	}
}
