package clustertest

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/raftforge"
	"github.com/lockkv/lockkv/internal/testcerts"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/replication"
)

// TestRaftPortSecured runs the README's 3-node cluster with --requirepass
// (and, in a second cluster, with --raft-secret and mutual TLS), every
// node's Raft traffic through the test's proxies, and plays an attacker on
// each node's Raft port: a forged AppendEntries that poses as the leader
// in a higher term with "SET lockA attacker", and a RequestVote with a
// higher term and a leadership-transfer flag to the leader, sent by a
// plain hashicorp/raft client, by lockkv's handshake without credentials
// and with a wrong secret. Nothing is applied on any node and the leader
// keeps leading in the same term. The "open" cluster (no credentials) is
// the control: the same RPCs through a handshake without credentials do
// get the entry applied and the leader deposed.
func TestRaftPortSecured(t *testing.T) {
	ca := testcerts.NewCA(t, "clustertest CA")
	otherCA := testcerts.NewCA(t, "another CA")
	for _, tc := range []struct {
		name string
		opts clusterOpts
		open bool
		// refusals are what the attacked nodes log: they, not the
		// attacker giving up, refused.
		refusals []string
	}{
		{name: "requirepass", opts: clusterOpts{password: "hunter2", extra: []string{"--forward"}},
			refusals: []string{"did not start with lockkv's handshake", "uses no Raft secret", "wrong Raft secret"}},
		{name: "raft-secret+mtls", opts: clusterOpts{password: "hunter2", extra: []string{"--raft-secret", "s3cret"},
			nodeExtra: func(i int) []string {
				cert, key := ca.Issue(t, fmt.Sprintf("n%d", i+1))
				return []string{"--raft-tls-cert", cert, "--raft-tls-key", key, "--raft-tls-ca", ca.CAFile}
			}},
			// A Go TLS client offers only a certificate of a CA the server
			// names, so the one of another CA is not even sent.
			refusals: []string{"first record does not look like a TLS handshake", "client didn't provide a certificate"}},
		{name: "open", open: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, 3, tc.opts, steadyLeader)
			ctx := context.Background()
			l := c.Leader()
			if err := c.client(l).Set(ctx, "lockA", "owner", 0).Err(); err != nil {
				t.Fatal(err)
			}
			c.waitConverged(20 * time.Second)
			if tc.opts.password != "" {
				// The nodes' own connections to each other's client
				// ports AUTH: followers' progress reports (WAIT counts
				// them) and, with --forward, a follower's forwarding.
				testutil.Eventually(t, 10*time.Second, func() error { // until WAIT 2 on the leader
					n, err := c.client(l).Wait(ctx, 2, 2*time.Second).Result()
					if err == nil && n != 2 {
						err = fmt.Errorf("WAIT 2 = %d", n)
					}
					return err
				})
				if slices.Contains(tc.opts.extra, "--forward") {
					if err := c.client((l+1)%3).Set(ctx, "forwarded", "1", 0).Err(); err != nil {
						t.Fatalf("SET through a forwarding follower: %v", err)
					}
				}
			}
			before, err := c.info(l)
			if err != nil {
				t.Fatal(err)
			}
			f := (l + 1) % 3
			fInfo, err := c.info(f)
			if err != nil {
				t.Fatal(err)
			}
			term, _ := strconv.ParseUint(fInfo["raft_term"], 10, 64)
			last, _ := strconv.ParseUint(fInfo["raft_last_log_index"], 10, 64)
			if id := before["raft_cluster_id"]; len(id) != 32 || fInfo["raft_cluster_id"] != id {
				t.Fatalf("cluster IDs %q (leader) and %q (follower)", id, fInfo["raft_cluster_id"])
			}

			handshake := func(cfg replication.Config) raftforge.Dialer {
				cfg.NodeID, cfg.RaftAdvertise = "mallory", "127.0.0.1:9"
				return func(addr string, timeout time.Duration) (net.Conn, error) {
					conn, _, err := replication.DialRaft(cfg, addr, timeout)
					return conn, err
				}
			}
			type attacker struct {
				name string
				dial raftforge.Dialer
			}
			attackers := []attacker{{"handshake without credentials", handshake(replication.Config{})}}
			if !tc.open {
				cert, key := otherCA.Issue(t, "mallory")
				attackers = append(attackers,
					attacker{"plain Raft client", raftforge.Plain},
					attacker{"wrong password", handshake(replication.Config{Password: "wrong"})},
					attacker{"right password, wrong secret, certificate of another CA", handshake(replication.Config{
						Password: "hunter2", RaftSecret: "wrong", RaftTLSCert: cert, RaftTLSKey: key, RaftTLSCA: ca.CAFile,
					})},
				)
			}
			forged := replication.EncodeEntry(&replication.Entry{Time: time.Now().UnixMilli(), Ops: []engine.Op{{
				Kind: engine.OpCommand, Proto: 2, Args: [][][]byte{{[]byte("SET"), []byte("lockA"), []byte("attacker")}},
			}}})
			for _, a := range attackers {
				fg, err := raftforge.New(a.dial)
				if err != nil {
					t.Fatal(err)
				}
				// Straight to the nodes' own Raft ports, not through the
				// proxies.
				_, appendErr := fg.AppendEntry(c.nodes[f].raftAddr, c.nodes[l].id, c.net.addr(l), term+1, last, term, forged)
				_, voteErr := fg.RequestVote(c.nodes[l].raftAddr, c.nodes[f].id, c.net.addr(f), term+100, last+1000, term+100)
				fg.Close()
				if tc.open {
					if appendErr != nil || voteErr != nil {
						t.Fatalf("%s on an open Raft port: %v, %v", a.name, appendErr, voteErr)
					}
					continue
				}
				if appendErr == nil || voteErr == nil {
					t.Errorf("%s: forged RPCs answered: AppendEntries %v, RequestVote %v", a.name, appendErr, voteErr)
				}
			}

			if tc.open {
				testutil.Eventually(t, 20*time.Second, func() error { // until the forged entry applied on the follower and the leader deposed
					m, err := c.info(l)
					if err != nil {
						return err
					}
					if t2, _ := strconv.ParseUint(m["raft_term"], 10, 64); t2 <= term {
						return fmt.Errorf("the leader is still in term %d", t2)
					}
					return c.followerHas(f, "lockA", "attacker")
				})
				if !strings.Contains(c.logTail(l, 200), "Raft port is unauthenticated") {
					t.Errorf("no warning about the open Raft port in %s's log", c.nodes[l].id)
				}
				return
			}
			// The attacker may see an error even where a node took its
			// RPC: what the nodes hold decides, right after the attacks
			// and after a later write (had a forged entry been taken, the
			// logs would disagree or lockA would show it).
			untouched := func(when string) {
				t.Helper()
				for i := range c.nodes {
					m, err := c.info(i)
					if err != nil {
						t.Fatal(err)
					}
					if m["raft_term"] != before["raft_term"] || m["raft_leader_id"] != before["raft_leader_id"] {
						t.Errorf("%s: %s: term %s leader %s; before the attacks: term %s leader %s", when,
							c.nodes[i].id, m["raft_term"], m["raft_leader_id"], before["raft_term"], before["raft_leader_id"])
					}
					if err := c.followerHas(i, "lockA", "owner"); err != nil {
						t.Errorf("%s: %v", when, err)
					}
				}
			}
			untouched("right after the attacks")
			if err := c.client(c.Leader()).Set(ctx, "after", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if dump := c.waitConverged(20 * time.Second); strings.Contains(dump, "attacker") {
				t.Errorf("keyspace after the attacks:\n%s", dump)
			}
			untouched("after a later write")
			for _, i := range []int{f, l} {
				logs := c.logTail(i, 500)
				for _, r := range tc.refusals {
					if !strings.Contains(logs, r) {
						t.Errorf("%s logged no refusal with %q:\n%s", c.nodes[i].id, r, c.logTail(i, 40))
					}
				}
			}
		})
	}
}

// followerHas reports whether node i holds key=val in its own state.
func (c *cluster) followerHas(i int, key, val string) error {
	dump, err := c.dump(i)
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("%q string %s ", key, val); !strings.Contains(dump, want) {
		return fmt.Errorf("%s's keyspace lacks %s:\n%s", c.nodes[i].id, want, dump)
	}
	return nil
}
