package replication

import (
	crand "crypto/rand"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/raftforge"
	"github.com/lockkv/lockkv/internal/testcerts"
	"github.com/lockkv/lockkv/internal/testutil"
)

// The Raft port of a secured cluster refuses forged RPCs: an AppendEntries
// posing as a leader with a higher term carrying "SET lockA attacker",
// and a RequestVote with a higher term and a leadership-transfer flag sent
// to the leader. Nothing is applied anywhere and the leader keeps leading
// in the same term. The same RPCs against an unauthenticated cluster do
// take effect (TestRaftPortOpenTakesForgedRPCs), so these tests can fail.

// forgedSet is the entry an attacker wants applied.
func forgedSet() []byte {
	return appendEntry(nil, &Entry{Time: time.Now().UnixMilli(), Ops: []engine.Op{{
		Kind: engine.OpCommand, Proto: 2, Args: [][][]byte{{[]byte("SET"), []byte("lockA"), []byte("attacker")}},
	}}})
}

// attack sends both forged RPCs through dial: the AppendEntries to a
// follower, the RequestVote to the leader. It returns their errors.
func attack(t *testing.T, c *testCluster, dial raftforge.Dialer) (appendErr, voteErr error) {
	t.Helper()
	l := c.leader()
	leader, follower := c.nodes[l], c.nodes[(l+1)%len(c.nodes)]
	st := follower.raftState()
	f, err := raftforge.New(dial)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	resp, appendErr := f.AppendEntry(follower.cfg.RaftAddr, leader.cfg.NodeID, leader.cfg.RaftAddr,
		st.term+1, st.lastIndex, st.lastTm, forgedSet())
	if appendErr == nil && !resp.Success {
		t.Logf("forged AppendEntries answered but refused by Raft: %+v", resp)
	}
	_, voteErr = f.RequestVote(leader.cfg.RaftAddr, follower.cfg.NodeID, follower.cfg.RaftAddr,
		st.term+100, st.lastIndex+1000, st.term+100)
	return appendErr, voteErr
}

// dialWith dials like a node configured with sec (no cluster ID).
func dialWith(sec *raftSecurity) raftforge.Dialer {
	auth := &handshakeAuth{key: sec.key, local: func() hello { return hello{nodeID: "mallory", addr: "127.0.0.1:9"} }}
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		c, _, err := dialRaft(addr, timeout, sec, auth)
		return c, err
	}
}

// blindDial sends a hello claiming a secret, reads the listener's hello,
// sends a made-up MAC and hands the connection over at once, so Raft's
// RPC bytes follow the bad MAC without waiting for a verdict. tlsCfg, when
// set, wraps the connection first (an insider with a certificate but no
// secret).
func blindDial(tlsCfg *tls.Config) raftforge.Dialer {
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			return nil, err
		}
		if tlsCfg != nil {
			tc := tls.Client(c, tlsCfg)
			if err := tc.Handshake(); err != nil {
				c.Close()
				return nil, err
			}
			c = tc
		}
		h := hello{flags: helloSecret, nodeID: "mallory", addr: "127.0.0.1:9"}
		crand.Read(h.nonce[:])
		if _, err := c.Write(h.encode()); err != nil {
			c.Close()
			return nil, err
		}
		if _, _, err := readHello(c); err != nil {
			c.Close()
			return nil, err
		}
		mac := make([]byte, 32)
		crand.Read(mac)
		if _, err := c.Write(mac); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
}

type secureMode struct {
	name   string
	secret string // Config.RaftSecret
	pass   string // Config.Password (requirepass)
	tls    bool
}

var secureModes = []secureMode{
	{name: "requirepass", pass: "hunter2"},
	{name: "raft-secret", secret: "s3cret", pass: "hunter2"},
	{name: "mtls", tls: true},
	{name: "mtls+secret", tls: true, secret: "s3cret"},
}

func TestRaftPortRefusesForgedRPCs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	for _, m := range secureModes {
		t.Run(m.name, func(t *testing.T) {
			ca, otherCA := testcerts.NewCA(t, "lockkv test CA"), testcerts.NewCA(t, "another CA")
			c := newTestCluster(t, 3, func(i int, cfg *Config) {
				cfg.RaftSecret, cfg.Password = m.secret, m.pass
				if m.tls {
					setTLS(t, ca, cfg.NodeID, cfg)
				}
			})
			c.set("lockA", "owner")
			c.converged()
			l := c.leader()
			before := c.nodes[l].raftState()

			type attacker struct {
				name string
				dial raftforge.Dialer
			}
			attackers := []attacker{
				{"plain Raft client", raftforge.Plain},
				{"handshake without credentials", dialWith(&raftSecurity{})},
				{"wrong secret", dialWith(&raftSecurity{key: deriveKey("wrong")})},
				{"bad MAC then RPC bytes", blindDial(nil)},
			}
			if m.tls {
				clusterTLS := func(name string) *raftSecurity {
					var cfg Config
					setTLS(t, ca, name, &cfg)
					sec, err := newRaftSecurity(&cfg)
					if err != nil {
						t.Fatal(err)
					}
					return sec
				}
				foreign := func(name string) *raftSecurity {
					var cfg Config
					setTLS(t, otherCA, name, &cfg)
					cfg.RaftTLSCA = ca.CAFile // trusts the cluster, is not trusted by it
					sec, err := newRaftSecurity(&cfg)
					if err != nil {
						t.Fatal(err)
					}
					// Sent whatever CAs the server names (a Go client
					// would keep it back).
					cert := sec.clientTLS.Certificates[0]
					sec.clientTLS.Certificates = nil
					sec.clientTLS.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
					return sec
				}
				noCert := &raftSecurity{clientTLS: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}}
				attackers = append(attackers,
					attacker{"TLS without a certificate", dialWith(noCert)},
					attacker{"certificate of another CA", dialWith(foreign("mallory"))},
					attacker{"certificate of another CA, right secret", dialWith(&raftSecurity{key: keyOf(m), clientTLS: foreign("mallory2").clientTLS})},
				)
				if m.secret != "" {
					// A member's certificate is not enough: the secret is
					// asked for too.
					insider := clusterTLS("insider")
					attackers = append(attackers,
						attacker{"cluster certificate, wrong secret", dialWith(&raftSecurity{key: deriveKey("wrong"), clientTLS: insider.clientTLS})},
						attacker{"cluster certificate, bad MAC then RPC bytes", blindDial(insider.clientTLS)},
					)
				}
			}
			for _, a := range attackers {
				appendErr, voteErr := attack(t, c, a.dial)
				if appendErr == nil || voteErr == nil {
					t.Errorf("%s: forged RPCs were answered: AppendEntries err %v, RequestVote err %v", a.name, appendErr, voteErr)
				}
			}
			// The attacker may see an error even where a node took its
			// RPC (its client reads bytes it did not expect): what the
			// nodes hold decides.
			checkUntouched := func(when string) {
				t.Helper()
				for _, tn := range c.nodes {
					if got := tn.get("lockA"); got != "owner" {
						t.Errorf("%s: %s: lockA = %q", when, tn.cfg.NodeID, got)
					}
					if st := tn.raftState(); st.term != before.term || st.leader != before.leader {
						t.Errorf("%s: %s: term %d leader %q, before the attacks term %d leader %q",
							when, tn.cfg.NodeID, st.term, st.leader, before.term, before.leader)
					}
				}
			}
			checkUntouched("right after the attacks")
			// A write after the attacks: had a forged entry been taken,
			// the logs would now disagree or lockA would show it.
			c.set("after", "1")
			c.converged()
			checkUntouched("after a later write")
			// The nodes refused (not the attackers gave up), each for
			// what was wrong.
			want := []string{"did not start with lockkv's handshake", "uses no Raft secret", "wrong Raft secret"}
			if m.tls {
				want = []string{"first record does not look like a TLS handshake", "client didn't provide a certificate", "certificate signed by unknown authority"}
				if m.secret != "" {
					want = append(want, "wrong Raft secret")
				}
			}
			for _, tn := range []*testNode{c.nodes[l], c.nodes[(l+1)%3]} {
				for _, w := range want {
					if tn.logs.Count(w) == 0 {
						t.Errorf("%s logged no refusal with %q:\n%s", tn.cfg.NodeID, w, tn.logs)
					}
				}
			}
		})
	}
}

// setTLS sets cfg's Raft TLS files to a new certificate of ca.
func setTLS(t testing.TB, ca *testcerts.CA, name string, cfg *Config) {
	cfg.RaftTLSCert, cfg.RaftTLSKey = ca.Issue(t, name)
	cfg.RaftTLSCA = ca.CAFile
}

// keyOf is the HMAC key a node of mode m derives.
func keyOf(m secureMode) []byte {
	s := m.secret
	if s == "" {
		s = m.pass
	}
	if s == "" {
		return nil
	}
	return deriveKey(s)
}

// TestRaftPortOpenTakesForgedRPCs is the control: without TLS or a secret
// the same forged RPCs get an entry applied and make the leader step down,
// so the attack code does what the refusals above are proven against.
func TestRaftPortOpenTakesForgedRPCs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	c := newTestCluster(t, 3, nil)
	c.set("lockA", "owner")
	c.converged()
	l := c.leader()
	before := c.nodes[l].raftState()
	follower := c.nodes[(l+1)%3]
	if !strings.Contains(c.nodes[l].logs.String(), "the Raft port is unauthenticated") {
		t.Errorf("no warning about the open Raft port:\n%s", c.nodes[l].logs)
	}
	appendErr, voteErr := attack(t, c, dialWith(&raftSecurity{}))
	if appendErr != nil || voteErr != nil {
		t.Fatalf("forged RPCs failed on an open port: %v, %v", appendErr, voteErr)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := follower.get("lockA"); got != "attacker" {
			return fmt.Errorf("the follower's lockA = %q, want the forged value", got)
		}
		if st := c.nodes[l].raftState(); st.term <= before.term {
			return fmt.Errorf("the leader's term is still %d", st.term)
		}
		return nil
	})
}
