// Package clustertest runs lockkv clusters as separate processes on
// loopback and checks what issue 4 promises of them: an acknowledged lock
// survives a leader failover (SIGKILL), a partitioned leader acknowledges
// nothing it cannot commit, a randomized history of lock operations under
// leader kills and partitions is mutually exclusive and linearizable
// (porcupine), go-redis's ClusterClient and FailoverClient follow the
// leader, a plain client of a follower works with --forward, and
// acknowledged writes survive killing every node.
//
// TestMain builds cmd/lockkv once. Every node's Raft traffic passes through
// a TCP proxy the test owns (--raft-advertise names the proxy), so a test
// can cut a node off in both directions. The tests need Linux (/proc tells
// the proxies which node dialled them; children die with the test through
// Pdeathsig).
//
// LOCKKV_HISTORY_SECONDS lengthens the randomized history (default 20),
// LOCKKV_HISTORY_NODES sets its cluster size (default 3) and
// LOCKKV_HISTORY_SEED repeats a nemesis schedule.
package clustertest
