package replication

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testcerts"
)

func TestHelloRoundTrip(t *testing.T) {
	for _, h := range []hello{
		{},
		{flags: helloSecret | helloHasState, clusterID: bytes.Repeat([]byte{7}, idSize), nodeID: "n1", addr: "10.0.0.1:16379"},
		{nodeID: strings.Repeat("x", 255), addr: strings.Repeat("y", 255), clusterID: bytes.Repeat([]byte{1}, idSize)},
	} {
		h.nonce[3] = 9
		b := h.encode()
		if len(b) > maxHello {
			t.Fatalf("hello of %d bytes, max %d", len(b), maxHello)
		}
		// Bytes after the hello (Raft's) are left unread.
		r := bytes.NewReader(append(append([]byte(nil), b...), "raft"...))
		got, raw, err := readHello(r)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.clusterID) == 0 {
			got.clusterID = nil // none, however it was made
		}
		if !reflect.DeepEqual(*got, h) || !bytes.Equal(raw, b) {
			t.Fatalf("round trip: got %+v, want %+v", *got, h)
		}
		if rest, _ := io.ReadAll(r); string(rest) != "raft" {
			t.Fatalf("readHello read past the hello: %q left", rest)
		}
	}
}

func TestReadHelloRefuses(t *testing.T) {
	good := (&hello{nodeID: "n1", addr: "a"}).encode()
	badID := append([]byte(nil), good...)
	badID[helloFixed-1] = 5
	for name, in := range map[string][]byte{
		"raft bytes":      {0, 0x85, 0xa9}, // an AppendEntries' first bytes
		"short":           good[:10],
		"truncated":       good[:len(good)-1],
		"ID length 5":     badID,
		"other magic":     append([]byte("LKVRAFT9"), good[8:]...),
		"empty":           nil,
		"magic then EOF":  []byte(helloMagic),
		"redis handshake": []byte("*1\r\n$4\r\nPING\r\n" + strings.Repeat(" ", 40)),
	} {
		if _, _, err := readHello(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzReadHello(f *testing.F) {
	f.Add((&hello{nodeID: "n1", addr: "127.0.0.1:1", clusterID: make([]byte, idSize)}).encode())
	f.Add([]byte(helloMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, raw, err := readHello(bytes.NewReader(b))
		if err != nil {
			return
		}
		if len(raw) > maxHello || !bytes.HasPrefix(b, raw) || !bytes.Equal(h.encode(), raw) {
			t.Fatalf("hello %+v from %x re-encodes differently", h, b)
		}
	})
}

// handshakePair runs both sides over a pipe and returns their errors.
func handshakePair(t *testing.T, dialer, listener *handshakeAuth) (dialErr, acceptErr error) {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	a.SetDeadline(time.Now().Add(5 * time.Second))
	b.SetDeadline(time.Now().Add(5 * time.Second))
	done := make(chan error, 1)
	go func() {
		_, err := listener.acceptHandshake(b, "dialer-host")
		if err != nil {
			b.Close()
		}
		done <- err
	}()
	_, dialErr = dialer.dialHandshake(a, "listener:1")
	if dialErr != nil {
		a.Close()
	}
	return dialErr, <-done
}

func authWith(key []byte, id []byte) *handshakeAuth {
	return &handshakeAuth{key: key, local: func() hello { return hello{clusterID: id, nodeID: "x", addr: "127.0.0.1:1"} }}
}

func TestHandshakeOutcomes(t *testing.T) {
	k1, k2 := deriveKey("one"), deriveKey("two")
	id1, id2 := bytes.Repeat([]byte{1}, idSize), bytes.Repeat([]byte{2}, idSize)
	for _, tc := range []struct {
		name             string
		dialer, listener *handshakeAuth
		// want is "" for success, else text both errors contain.
		dialWant, acceptWant string
	}{
		{"open", authWith(nil, nil), authWith(nil, nil), "", ""},
		{"same secret", authWith(k1, id1), authWith(k1, id1), "", ""},
		{"new node (no ID) added by a leader", authWith(k1, id1), authWith(k1, nil), "", ""},
		{"node without ID dials a member", authWith(k1, nil), authWith(k1, id1), "", ""},
		{"different secrets", authWith(k2, id1), authWith(k1, id1), "secrets", "wrong Raft secret"},
		{"dialer without secret", authWith(nil, nil), authWith(k1, nil), "uses a Raft secret", "uses no Raft secret"},
		{"listener without secret", authWith(k1, nil), authWith(nil, nil), "uses no Raft secret", "uses a Raft secret"},
		{"other cluster", authWith(k1, id2), authWith(k1, id1), "another cluster", "another cluster"},
		{"other cluster, open", authWith(nil, id2), authWith(nil, id1), "another cluster", "another cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dErr, aErr := handshakePair(t, tc.dialer, tc.listener)
			check := func(side string, err error, want string) {
				t.Helper()
				switch {
				case want == "" && err != nil:
					t.Errorf("%s: %v", side, err)
				case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("%s: got %v, want an error with %q", side, err, want)
				}
			}
			check("dialer", dErr, tc.dialWant)
			check("listener", aErr, tc.acceptWant)
		})
	}
}

// A listener that is not lockkv (a plain Raft node, or anything that says
// nothing back) is an error of the dialer within the deadline.
func TestDialSilentListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	_, _, err = dialRaft(ln.Addr().String(), 300*time.Millisecond, &raftSecurity{}, authWith(nil, nil))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("got %v, want a timeout", err)
	}
}

// Silent or slow dialers do not hold up the others: each handshake runs on
// its own with a deadline, and a peer's handshake completes while they
// wait; when their deadline passes they are closed.
func TestSlowDialersDoNotBlockAccept(t *testing.T) {
	c := newTestCluster(t, 1, func(i int, cfg *Config) { cfg.RaftSecret = "s" })
	addr := c.nodes[0].cfg.RaftAddr
	var silent []net.Conn
	for i := 0; i < 20; i++ {
		sc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		silent = append(silent, sc)
	}
	// One that sends half a hello and stops.
	half, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	half.Write([]byte(helloMagic))

	sec, _ := newRaftSecurity(&Config{RaftSecret: "s"})
	start := time.Now()
	conn, peer, err := dialRaft(addr, 3*time.Second, sec, authWith(sec.key, nil))
	if err != nil {
		t.Fatalf("a peer's dial with 21 silent connections pending: %v", err)
	}
	conn.Close()
	if peer.NodeID != "n1" || peer.ClusterID != c.nodes[0].node.ClusterID() {
		t.Errorf("peer info %+v", peer)
	}
	// The silent ones are still open (their deadline has not passed): the
	// peer's handshake did not wait for them.
	if time.Since(start) < handshakeTimeout {
		for _, sc := range append(silent, half) {
			sc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			if _, err := sc.Read(make([]byte, 1)); !isTimeout(err) {
				t.Fatalf("a silent connection ended early: %v", err)
			}
		}
	}
	// Then they are closed.
	for _, sc := range append(silent, half) {
		sc.SetReadDeadline(time.Now().Add(handshakeTimeout + 5*time.Second))
		if _, err := sc.Read(make([]byte, 1)); err != io.EOF && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Fatalf("a silent connection after the deadline: %v, want it closed", err)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "connection reset") }

// The dialer checks the listener's certificate against the CA: a server
// with a certificate of another CA is refused before anything is sent.
func TestDialRefusesServerOfAnotherCA(t *testing.T) {
	ca, other := testcerts.NewCA(t, "cluster CA"), testcerts.NewCA(t, "other CA")
	var cfg Config
	setTLS(t, ca, "n1", &cfg)
	sec, err := newRaftSecurity(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{other.KeyPair(t, "rogue")},
		ClientAuth:   tls.RequestClientCert,
		MinVersion:   tls.VersionTLS13,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c)
		got <- b
	}()
	_, _, err = dialRaft(ln.Addr().String(), 3*time.Second, sec, authWith(sec.key, nil))
	if err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("dial to a server of another CA: %v", err)
	}
	if b := <-got; len(b) != 0 {
		t.Fatalf("the rogue server received %q", b)
	}
}

// Raft TLS needs its three files, readable and valid.
func TestRaftTLSConfigErrors(t *testing.T) {
	ca := testcerts.NewCA(t, "ca")
	cert, key := ca.Issue(t, "n1")
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{RaftTLSCert: cert}, "needs all of"},
		{Config{RaftTLSCert: cert, RaftTLSKey: key, RaftTLSCA: "/nonexistent/ca.pem"}, "--raft-tls-ca"},
		{Config{RaftTLSCert: cert, RaftTLSKey: cert, RaftTLSCA: ca.CAFile}, "--raft-tls-cert/--raft-tls-key"},
		{Config{RaftTLSCert: cert, RaftTLSKey: key, RaftTLSCA: key}, "no PEM certificate"},
	} {
		tc.cfg.NodeID, tc.cfg.RaftAddr = "n1", "127.0.0.1:1"
		if _, err := New(tc.cfg, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// BenchmarkDialRaft is the cost of a new Raft connection (TCP, TLS, the
// handshake) on loopback, per mode.
func BenchmarkDialRaft(b *testing.B) {
	ca := testcerts.NewCA(b, "bench CA")
	for _, m := range []struct {
		name   string
		secret string
		tls    bool
	}{{"open", "", false}, {"secret", "s", false}, {"mtls", "", true}, {"mtls+secret", "s", true}} {
		b.Run(m.name, func(b *testing.B) {
			cfg := Config{RaftSecret: m.secret}
			if m.tls {
				setTLS(b, ca, "n1", &cfg)
			}
			sec, err := newRaftSecurity(&cfg)
			if err != nil {
				b.Fatal(err)
			}
			adv, _ := net.ResolveTCPAddr("tcp", "127.0.0.1:1")
			sl, err := newStreamLayer("127.0.0.1:0", adv, sec, authWith(sec.key, nil), newRefusalLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				b.Fatal(err)
			}
			defer sl.Close()
			go func() {
				for {
					c, err := sl.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
			addr := sl.ln.Addr().String()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, _, err := dialRaft(addr, 5*time.Second, sec, authWith(sec.key, nil))
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}
