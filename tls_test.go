package lockkv

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/replication"
)

// testCA is a certificate authority made for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // its certificate, PEM
	pool *x509.CertPool
}

var certSerial int64

func newTestCA(t *testing.T, dir, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	certSerial++
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(certSerial),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ca := &testCA{cert: cert, key: key, file: filepath.Join(dir, name+".crt"), pool: x509.NewCertPool()}
	ca.pool.AddCert(cert)
	writePEM(t, ca.file, "CERTIFICATE", der)
	return ca
}

func writePEM(t *testing.T, file, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// issue makes a certificate for 127.0.0.1 (server and client use), and
// writes it and its key as PEM files; it returns the files and the pair.
func (ca *testCA) issue(t *testing.T, dir, name string) (certFile, keyFile string, pair tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	certSerial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(certSerial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder)
	pair, err = tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pair
}

// tlsFixture is a CA, a server certificate, a client certificate from the
// same CA and one from another CA.
type tlsFixture struct {
	dir                 string
	ca                  *testCA
	srvCert, srvKey     string
	client, otherClient tls.Certificate
	cliCert, cliKey     string
}

func newTLSFixture(t *testing.T) *tlsFixture {
	t.Helper()
	f := &tlsFixture{dir: t.TempDir()}
	f.ca = newTestCA(t, f.dir, "ca")
	f.srvCert, f.srvKey, _ = f.ca.issue(t, f.dir, "server")
	f.cliCert, f.cliKey, f.client = f.ca.issue(t, f.dir, "client")
	other := newTestCA(t, f.dir, "other-ca")
	_, _, f.otherClient = other.issue(t, f.dir, "intruder")
	return f
}

func (f *tlsFixture) config(auth string) Config {
	return Config{TLSCertFile: f.srvCert, TLSKeyFile: f.srvKey, TLSCACertFile: f.ca.file, TLSAuthClients: auth}
}

// tlsClient is a go-redis client of addr over TLS presenting the given
// client certificate, if any, whatever CAs the server asks for (Go's
// client would otherwise keep quiet about one from another CA).
func (f *tlsFixture) tlsClient(t *testing.T, addr string, certs ...tls.Certificate) *redis.Client {
	tc := &tls.Config{RootCAs: f.ca.pool, MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if len(certs) == 0 {
				return &tls.Certificate{}, nil
			}
			return &certs[0], nil
		}}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 5 * time.Second, TLSConfig: tc})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTLSClients: the TLS listener serves clients with a certificate from
// the CA (tls-auth-clients yes, the default with a CA), refuses those
// without one or with one from another CA, and CONFIG GET reports it.
func TestTLSClients(t *testing.T) {
	f := newTLSFixture(t)
	srv := RunTWith(t, f.config(""))
	ctx := context.Background()

	c := f.tlsClient(t, srv.TLSAddr(), f.client)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET over TLS with a client certificate: %v", err)
	}
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET over TLS = %q, %v", v, err)
	}
	// Plain TCP is still served, on its own port.
	plain := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer plain.Close()
	if v, err := plain.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET over plain TCP = %q, %v", v, err)
	}
	if err := f.tlsClient(t, srv.TLSAddr()).Ping(ctx).Err(); err == nil {
		t.Error("a client without a certificate was served")
	}
	if err := f.tlsClient(t, srv.TLSAddr(), f.otherClient).Ping(ctx).Err(); err == nil {
		t.Error("a client with another CA's certificate was served")
	}
	// TLS 1.2 at least.
	old := redis.NewClient(&redis.Options{Addr: srv.TLSAddr(), MaxRetries: -1,
		TLSConfig: &tls.Config{RootCAs: f.ca.pool, Certificates: []tls.Certificate{f.client}, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}})
	defer old.Close()
	if err := old.Ping(ctx).Err(); err == nil {
		t.Error("a TLS 1.1 client was served")
	}

	_, tlsPort, _ := net.SplitHostPort(srv.TLSAddr())
	_, port, _ := net.SplitHostPort(srv.Addr())
	got, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"tls-port": tlsPort, "port": port, "tls-cert-file": f.srvCert,
		"tls-key-file": f.srvKey, "tls-ca-cert-file": f.ca.file, "tls-auth-clients": "yes", "bind": "127.0.0.1"} {
		if got[name] != want {
			t.Errorf("CONFIG GET %s = %q, want %q", name, got[name], want)
		}
	}
	// Fixed at start: CONFIG SET takes only the current values.
	if err := c.ConfigSet(ctx, "tls-auth-clients", "no").Err(); err == nil || !strings.Contains(err.Error(), "lockkv does not support changing TLS settings") {
		t.Errorf("CONFIG SET tls-auth-clients no: %v", err)
	}
	if err := c.ConfigSet(ctx, "tls-port", tlsPort).Err(); err != nil {
		t.Errorf("CONFIG SET tls-port to its value: %v", err)
	}
}

// TestTLSAuthClientsOptional: optional serves clients without a
// certificate, still refuses a certificate from another CA; no ignores
// client certificates.
func TestTLSAuthClientsOptional(t *testing.T) {
	f := newTLSFixture(t)
	ctx := context.Background()
	srv := RunTWith(t, f.config("optional"))
	if err := f.tlsClient(t, srv.TLSAddr()).Ping(ctx).Err(); err != nil {
		t.Errorf("optional, no certificate: %v", err)
	}
	if err := f.tlsClient(t, srv.TLSAddr(), f.client).Ping(ctx).Err(); err != nil {
		t.Errorf("optional, the CA's certificate: %v", err)
	}
	if err := f.tlsClient(t, srv.TLSAddr(), f.otherClient).Ping(ctx).Err(); err == nil {
		t.Error("optional: a certificate from another CA was accepted")
	}

	srv = RunTWith(t, Config{TLSCertFile: f.srvCert, TLSKeyFile: f.srvKey})
	if err := f.tlsClient(t, srv.TLSAddr()).Ping(ctx).Err(); err != nil {
		t.Errorf("without a CA (auth no), no certificate: %v", err)
	}
	if v, err := f.tlsClient(t, srv.TLSAddr()).ConfigGet(ctx, "tls-auth-clients").Result(); err != nil || v["tls-auth-clients"] != "no" {
		t.Errorf("CONFIG GET tls-auth-clients without a CA = %v, %v", v, err)
	}
}

// TestTLSBadConfig: what cannot serve is refused, by NewServer or (a
// file that cannot be read or used) by Start.
func TestTLSBadConfig(t *testing.T) {
	f := newTLSFixture(t)
	for name, cfg := range map[string]Config{
		"auth yes without a CA":   {TLSCertFile: f.srvCert, TLSKeyFile: f.srvKey, TLSAuthClients: "yes"},
		"no key":                  {TLSCertFile: f.srvCert},
		"missing certificate":     {TLSCertFile: filepath.Join(f.dir, "nosuch.crt"), TLSKeyFile: f.srvKey},
		"the key for another one": {TLSCertFile: f.srvCert, TLSKeyFile: f.cliKey},
		"a CA file without PEM":   {TLSCertFile: f.srvCert, TLSKeyFile: f.srvKey, TLSCACertFile: f.srvKey},
		"bad auth":                {TLSCertFile: f.srvCert, TLSKeyFile: f.srvKey, TLSCACertFile: f.ca.file, TLSAuthClients: "maybe"},
		"TLS only without TLS":    {TLSOnly: true},
	} {
		srv, err := NewServer(cfg)
		if err != nil {
			continue
		}
		if err := srv.Start(); err == nil {
			srv.Close()
			t.Errorf("%s: started", name)
		}
	}
}

// TestTLSOnly: with TLSOnly there is no plain listener; CONFIG GET port
// says 0, as Redis's port 0.
func TestTLSOnly(t *testing.T) {
	f := newTLSFixture(t)
	cfg := f.config("")
	cfg.TLSOnly = true
	srv := RunTWith(t, cfg)
	if srv.Addr() != "" {
		t.Errorf("Addr() = %q with TLS only", srv.Addr())
	}
	c := f.tlsClient(t, srv.TLSAddr(), f.client)
	if v, err := c.ConfigGet(context.Background(), "port").Result(); err != nil || v["port"] != "0" {
		t.Errorf("CONFIG GET port = %v, %v", v, err)
	}
}

// TestTLSRedisCLI: the installed redis-cli (built with TLS) talks to the
// TLS listener with a client certificate, and is refused without one.
func TestTLSRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not on PATH")
	}
	if out, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(out), "--tls") {
		t.Skip("redis-cli was built without TLS")
	}
	f := newTLSFixture(t)
	srv := RunTWith(t, f.config(""))
	_, port, _ := net.SplitHostPort(srv.TLSAddr())
	base := []string{"-h", "127.0.0.1", "-p", port, "--tls", "--cacert", f.ca.file}
	out, err := exec.Command(cli, append(base, "--cert", f.cliCert, "--key", f.cliKey, "PING")...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "PONG" {
		t.Errorf("redis-cli --tls with a certificate: %q, %v", out, err)
	}
	out, _ = exec.Command(cli, append(base, "PING")...).CombinedOutput()
	if strings.TrimSpace(string(out)) == "PONG" {
		t.Error("redis-cli --tls without a certificate was served")
	}
}

// TestTLSOnlyCluster: members that serve only TLS dial each other's
// client ports with TLS: a follower forwards to the leader, reports its
// progress (RAFT.NODE ACK, seen in INFO replication), and a new node
// joins through a member.
func TestTLSOnlyCluster(t *testing.T) {
	f := newTLSFixture(t)
	ctx := context.Background()
	const n = 3
	tlsNode := func(c *Config) {
		c.TLSCertFile, c.TLSKeyFile, c.TLSCACertFile = f.srvCert, f.srvKey, f.ca.file
		c.TLSOnly, c.TLSAddr, c.Addr = true, c.Addr, ""
	}
	tc := startClusterCfg(t, n, func(c *Config) {
		tlsNode(c)
		rc(c).Forward = true
	})
	l := tc.leader()
	fi := (l + 1) % n
	waitFor(t, "the registry on the follower", func() bool {
		var ok bool
		tc.srvs[fi].Do(func(e *engine.Engine) { m, has := e.Cluster().Leader(); ok = has && m.ClientAddr != "" })
		return ok
	})
	fc := f.tlsClient(t, tc.peers[fi].ClientAddr, f.client)
	if err := fc.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET through a follower (forwarded over TLS): %v", err)
	}
	lc := f.tlsClient(t, tc.peers[l].ClientAddr, f.client)
	waitFor(t, "both followers' progress reports over TLS", func() bool {
		info, _ := lc.Info(ctx, "replication").Result()
		return strings.Contains(info, "connected_slaves:2")
	})

	p := replication.Peer{ID: "n4", RaftAddr: testnet.FreeAddr(t), ClientAddr: testnet.FreeAddr(t)}
	cfg4 := Config{Addr: p.ClientAddr, Cluster: &replication.Config{NodeID: p.ID, RaftAddr: p.RaftAddr, Join: tc.peers[fi].ClientAddr,
		HeartbeatTimeout: 300 * time.Millisecond, ElectionTimeout: 300 * time.Millisecond}}
	tlsNode(&cfg4)
	s4 := mustNewServer(t, cfg4)
	if err := s4.Start(); err != nil {
		t.Fatal(err)
	}
	defer s4.Close()
	waitFor(t, "n4 to join over TLS and hold the data", func() bool {
		var ok bool
		s4.Do(func(e *engine.Engine) { ok = e.DBs[0].Peek("k") != nil })
		return ok
	})
}

// TestTLSWithEventLoop: with the event loop serving plain TCP
// (LOCKKV_AELOOP=a, Linux), TLS clients keep their connection goroutines
// and hand their requests to the same loop: messages cross between the
// two kinds of client, a busy script started by one answers the other
// -BUSY and is killed by it, and the script's own TLS client's next
// request waits for it.
func TestTLSWithEventLoop(t *testing.T) {
	t.Setenv("LOCKKV_AELOOP", "a")
	f := newTLSFixture(t)
	srv := RunTWith(t, f.config(""))
	ctx := context.Background()
	secure := f.tlsClient(t, srv.TLSAddr(), f.client)
	plain := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer plain.Close()

	for _, c := range []struct {
		name     string
		sub, pub *redis.Client
	}{{"plain to TLS", secure, plain}, {"TLS to plain", plain, secure}} {
		ps := c.sub.Subscribe(ctx, "ch")
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatalf("%s: SUBSCRIBE: %v", c.name, err)
		}
		if n, err := c.pub.Publish(ctx, "ch", c.name).Result(); err != nil || n != 1 {
			t.Fatalf("%s: PUBLISH = %d, %v", c.name, n, err)
		}
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil || msg.Payload != c.name {
			t.Fatalf("%s: message %v, %v", c.name, msg, err)
		}
		ps.Close()
	}

	for _, c := range []struct {
		name           string
		runner, killer *redis.Client
	}{{"TLS script, plain kill", secure, plain}, {"plain script, TLS kill", plain, secure}} {
		if err := c.killer.ConfigSet(ctx, "busy-reply-threshold", "50").Err(); err != nil {
			t.Fatal(err)
		}
		// The runner's own connection: the script, then a PING that
		// waits for it, in one pipeline.
		conn := c.runner.Conn()
		pipe := conn.Pipeline()
		eval := pipe.Eval(ctx, "local i = 0 while true do i = i + 1 end", nil)
		ping := pipe.Ping(ctx)
		done := make(chan error, 1)
		go func() { _, err := pipe.Exec(ctx); done <- err }()
		testutil.Eventually(t, 10*time.Second, func() error {
			if err := c.killer.Get(ctx, "k").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY ") {
				return fmt.Errorf("%s: GET while the script spins: %v", c.name, err)
			}
			return nil
		})
		if err := c.killer.ScriptKill(ctx).Err(); err != nil {
			t.Fatalf("%s: SCRIPT KILL: %v", c.name, err)
		}
		<-done
		if err := eval.Err(); err == nil || !strings.Contains(err.Error(), "Script killed by user with SCRIPT KILL") {
			t.Errorf("%s: the killed script: %v", c.name, err)
		}
		if err := ping.Err(); err != nil {
			t.Errorf("%s: the PING after the script: %v", c.name, err)
		}
		conn.Close()
	}
}

// TestTLSProtocolErrorDuringAppliedScript: a TLS client's reader hands
// the count of its protocol error to the command goroutine, where a busy
// script holds it; when the script ran from the replication layer's work
// (a Do here, a script applied from the log on a follower), it is
// counted as soon as the script ends, not at some later client request
// (a review finding of the event loop). On the event loop and on Server.loop.
func TestTLSProtocolErrorDuringAppliedScript(t *testing.T) {
	for _, ae := range []string{"a", "off"} {
		t.Run("LOCKKV_AELOOP="+ae, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", ae)
			f := newTLSFixture(t)
			srv := RunTWith(t, f.config(""))
			ctx := context.Background()
			plain := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
			defer plain.Close()
			if err := plain.ConfigSet(ctx, "busy-reply-threshold", "50").Err(); err != nil {
				t.Fatal(err)
			}
			scriptDone := make(chan struct{})
			go func() {
				defer close(scriptDone)
				srv.Do(func(e *engine.Engine) {
					e.Call(e.NewClient(nil), [][]byte{[]byte("EVAL"), []byte("while true do end"), []byte("0")})
				})
			}()
			testutil.Eventually(t, 10*time.Second, func() error {
				if err := plain.Get(ctx, "k").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY ") {
					return fmt.Errorf("GET while the script spins: %v", err)
				}
				return nil
			})
			tc, err := tls.Dial("tcp", srv.TLSAddr(), &tls.Config{RootCAs: f.ca.pool, Certificates: []tls.Certificate{f.client}})
			if err != nil {
				t.Fatal(err)
			}
			defer tc.Close()
			tc.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := tc.Write([]byte("*1\r\n$x\r\n")); err != nil {
				t.Fatal(err)
			}
			// The reader handed the count over before it wrote the error.
			if got, _ := io.ReadAll(tc); !strings.HasPrefix(string(got), "-ERR Protocol error") {
				t.Fatalf("the malformed request's reply: %q", got)
			}
			if err := plain.ScriptKill(ctx).Err(); err != nil {
				t.Fatalf("SCRIPT KILL: %v", err)
			}
			<-scriptDone
			var after, later int64
			srv.Do(func(e *engine.Engine) { after = e.Stats.TotalErrorReplies })
			if err := plain.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			srv.Do(func(e *engine.Engine) { later = e.Stats.TotalErrorReplies })
			if after != later {
				t.Errorf("error replies: %d after the script, %d after a later PING: the protocol error was counted only at a later request", after, later)
			}
		})
	}
}
