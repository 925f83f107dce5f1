package replication

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// The Raft transport: hashicorp/raft's NetworkTransport (its wire format,
// pool and timeouts as before) over streamLayer, which hands Raft only
// connections that passed TLS (when configured) and the lockkv handshake.

const (
	raftMaxPool = 4
	raftTimeout = 10 * time.Second

	// maxPendingHandshakes bounds the connections being handshaken at
	// once, maxPendingPerHost those from one address: a flood of silent
	// connections from one host cannot take the slots peers on other hosts
	// need. Beyond either bound a connection is closed at once.
	maxPendingHandshakes = 512
	maxPendingPerHost    = 64
)

// raftSecurity is how a node's Raft connections are authenticated.
type raftSecurity struct {
	key       []byte      // HMAC key; nil without a secret
	serverTLS *tls.Config // nil without TLS
	clientTLS *tls.Config
}

// newRaftSecurity reads the secret and the TLS files of cfg.
func newRaftSecurity(cfg *Config) (*raftSecurity, error) {
	s := &raftSecurity{}
	secret := cfg.RaftSecret
	if secret == "" {
		secret = cfg.Password
	}
	if secret != "" {
		s.key = deriveKey(secret)
	}
	set := 0
	for _, f := range []string{cfg.RaftTLSCert, cfg.RaftTLSKey, cfg.RaftTLSCA} {
		if f != "" {
			set++
		}
	}
	if set == 0 {
		return s, nil
	}
	if set != 3 {
		return nil, errors.New("replication: Raft TLS needs all of --raft-tls-cert, --raft-tls-key and --raft-tls-ca")
	}
	cert, err := tls.LoadX509KeyPair(cfg.RaftTLSCert, cfg.RaftTLSKey)
	if err != nil {
		return nil, fmt.Errorf("replication: --raft-tls-cert/--raft-tls-key: %w", err)
	}
	pem, err := os.ReadFile(cfg.RaftTLSCA)
	if err != nil {
		return nil, fmt.Errorf("replication: --raft-tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("replication: --raft-tls-ca: no PEM certificate in %s", cfg.RaftTLSCA)
	}
	s.serverTLS = &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
	}
	// Peers are dialled by IP:port (or through proxies), so the server's
	// certificate is checked against the CA only, not against the address:
	// every certificate the CA signed for server use is a member. The CA
	// must be the cluster's own (DESIGN.md, README "Secure cluster").
	s.clientTLS = &tls.Config{
		MinVersion:         tls.VersionTLS13,
		Certificates:       []tls.Certificate{cert},
		InsecureSkipVerify: true, // replaced by VerifyConnection below
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the Raft peer sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
				Roots:         pool,
				Intermediates: inter,
				KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			return err
		},
	}
	return s, nil
}

// open reports whether anyone may connect (no TLS, no secret).
func (s *raftSecurity) open() bool { return s.key == nil && s.serverTLS == nil }

// streamLayer is raft.StreamLayer over TCP with the handshake. Accept
// returns connections whose handshake succeeded; each handshake runs on a
// goroutine of its own with a deadline, so a slow or silent dialer holds
// up no one.
type streamLayer struct {
	ln    net.Listener
	adv   net.Addr
	sec   *raftSecurity
	auth  *handshakeAuth
	log   *refusalLog
	ready chan net.Conn

	mu      sync.Mutex
	closed  bool
	done    chan struct{}
	pending map[net.Conn]string // connections in their handshake -> host
	perHost map[string]int
	wg      sync.WaitGroup
}

// newStreamLayer listens on bind; adv is the address given to peers.
func newStreamLayer(bind string, adv net.Addr, sec *raftSecurity, auth *handshakeAuth, log *refusalLog) (*streamLayer, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	if adv == nil {
		adv = ln.Addr()
	}
	if a, ok := adv.(*net.TCPAddr); !ok || a.IP == nil || a.IP.IsUnspecified() {
		ln.Close()
		return nil, fmt.Errorf("the Raft address %s cannot be given to peers; set --raft-advertise", adv)
	}
	s := &streamLayer{
		ln: ln, adv: adv, sec: sec, auth: auth, log: log,
		ready:   make(chan net.Conn),
		done:    make(chan struct{}),
		pending: map[net.Conn]string{},
		perHost: map[string]int{},
	}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

func (s *streamLayer) acceptLoop() {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and the like: back off and retry, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(backoff):
				continue
			case <-s.done:
				return
			}
		}
		backoff = 0
		host := c.RemoteAddr().String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		s.mu.Lock()
		if s.closed || len(s.pending) >= maxPendingHandshakes || s.perHost[host] >= maxPendingPerHost {
			closed := s.closed
			s.mu.Unlock()
			c.Close()
			if !closed {
				s.log.warn(host+" busy", "Raft connections from %s refused: too many handshakes in progress", host)
			}
			continue
		}
		s.pending[c] = host
		s.perHost[host]++
		s.wg.Add(1)
		s.mu.Unlock()
		go s.handshake(c, host)
	}
}

// handshake authenticates an incoming connection and hands it to Raft.
func (s *streamLayer) handshake(raw net.Conn, host string) {
	defer s.wg.Done()
	c, ok := s.accept(raw, host)
	s.mu.Lock()
	delete(s.pending, raw)
	if s.perHost[host]--; s.perHost[host] <= 0 {
		delete(s.perHost, host)
	}
	s.mu.Unlock()
	if !ok {
		raw.Close()
		return
	}
	select {
	case s.ready <- c:
	case <-s.done:
		c.Close()
	}
}

// accept runs TLS and the handshake on an incoming connection. Close
// ends it early by closing raw (the pending set holds raw connections).
func (s *streamLayer) accept(raw net.Conn, host string) (net.Conn, bool) {
	raw.SetDeadline(time.Now().Add(handshakeTimeout))
	c := raw
	if s.sec.serverTLS != nil {
		tc := tls.Server(raw, s.sec.serverTLS)
		if err := tc.Handshake(); err != nil {
			s.log.warn(host+" tls "+errKey(err), "Raft connection from %s refused: TLS: %v", host, err)
			return nil, false
		}
		c = tc
	}
	if _, err := s.auth.acceptHandshake(c, host); err != nil {
		s.log.refused(err)
		return nil, false
	}
	raw.SetDeadline(time.Time{})
	// Raft reads and writes through c (the TLS connection when TLS is
	// on); closing it closes raw.
	return c, true
}

// Accept returns the next authenticated connection (raft.StreamLayer).
func (s *streamLayer) Accept() (net.Conn, error) {
	select {
	case c := <-s.ready:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

// Close stops listening and ends the handshakes in progress.
func (s *streamLayer) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	for c := range s.pending {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

// Addr is the advertised address (raft.StreamLayer).
func (s *streamLayer) Addr() net.Addr { return s.adv }

// Dial connects to a peer and runs the handshake within timeout
// (raft.StreamLayer).
func (s *streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	c, _, err := dialRaft(string(addr), timeout, s.sec, s.auth)
	var he *handshakeError
	if errors.As(err, &he) {
		s.log.refused(err)
		// Raft logs the error of every retry: the tag makes slogWriter
		// keep those lines at debug level, the refusal having been
		// logged once.
		return nil, fmt.Errorf("%w %s", err, refusedTag)
	}
	return c, err
}

// refusedTag marks the dial errors of refused handshakes in Raft's logs.
const refusedTag = "(lockkv: handshake refused, logged once)"

// dialRaft connects to addr, runs TLS and the handshake, and returns the
// connection ready for Raft's wire format and what the peer said.
func dialRaft(addr string, timeout time.Duration, sec *raftSecurity, auth *handshakeAuth) (net.Conn, PeerInfo, error) {
	if timeout <= 0 {
		timeout = raftTimeout
	}
	raw, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, PeerInfo{}, err
	}
	raw.SetDeadline(time.Now().Add(timeout))
	c := raw
	if sec.clientTLS != nil {
		tc := tls.Client(raw, sec.clientTLS)
		if err := tc.Handshake(); err != nil {
			raw.Close()
			return nil, PeerInfo{}, refusal(addr+" tls "+errKey(err), "Raft peer %s refused: TLS: %v", addr, err)
		}
		c = tc
	}
	peer, err := auth.dialHandshake(c, addr)
	if err != nil {
		c.Close()
		return nil, PeerInfo{}, err
	}
	raw.SetDeadline(time.Time{})
	return c, peer.info(), nil
}

// DialRaft connects to the Raft port at addr as a node configured with
// cfg would (its RaftSecret or Password, its Raft TLS files, its NodeID
// and RaftAdvertise), knowing no cluster ID, and returns the connection,
// ready for hashicorp/raft's wire format, and what the peer said about
// itself. It is for tools and tests: a probe of which cluster a node
// belongs to, or a test playing a peer.
func DialRaft(cfg Config, addr string, timeout time.Duration) (net.Conn, PeerInfo, error) {
	sec, err := newRaftSecurity(&cfg)
	if err != nil {
		return nil, PeerInfo{}, err
	}
	auth := &handshakeAuth{key: sec.key, local: func() hello {
		return hello{nodeID: cfg.NodeID, addr: cfg.RaftAdvertise}
	}}
	return dialRaft(addr, timeout, sec, auth)
}

// newRaftTransport is the node's Raft transport.
func newRaftTransport(bind string, adv net.Addr, sec *raftSecurity, auth *handshakeAuth, rlog *refusalLog, logger hclog.Logger) (*raft.NetworkTransport, error) {
	sl, err := newStreamLayer(bind, adv, sec, auth, rlog)
	if err != nil {
		return nil, err
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  sl,
		MaxPool: raftMaxPool,
		Timeout: raftTimeout,
		Logger:  logger,
		// No pipelined AppendEntries. hashicorp/raft v1.7.3's pipeline can
		// deadlock: when a follower answers Success=false (or a newer
		// term), pipelineDecode returns and nobody reads the pipeline's
		// doneCh; the send loop may still send once more, parking on
		// inprogressCh while decodeResponses parks on doneCh. That
		// follower is then never replicated to again, and Raft's Shutdown
		// waits for the stuck goroutines forever (seen as a test that
		// hung closing a node after a leader transfer). With 1, every
		// AppendEntries is a plain RPC with the transport's deadlines;
		// hashicorp/raft's own measurements (#541) found pipelining of
		// little benefit beside batching.
		MaxRPCsInFlight: 1,
	}), nil
}

// errKey is the kind of err, for a refusal's log key: without the
// addresses a network error names (they change with every connection)
// and without what follows " (", where TLS errors quote what the peer
// sent (another CA's name), so a peer cannot vary the key at will.
func errKey(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	k := err.Error()
	if i := strings.Index(k, " ("); i >= 0 {
		k = k[:i]
	}
	if len(k) > 100 {
		k = k[:100]
	}
	return k
}

// refusalLog logs each refusal once per peer and reason (the handshake
// error's key), not once per retry. It forgets everything when it holds
// too many keys, so a flood of addresses cannot grow it without bound.
type refusalLog struct {
	log  *slog.Logger
	mu   sync.Mutex
	seen map[string]struct{}
	// count counts every refusal, logged or not.
	count atomic.Int64
}

const maxRefusalKeys = 4096

func newRefusalLog(log *slog.Logger) *refusalLog {
	return &refusalLog{log: log, seen: map[string]struct{}{}}
}

func (l *refusalLog) refused(err error) {
	var he *handshakeError
	if errors.As(err, &he) {
		l.warn(he.key, "%s", he.msg)
	}
}

func (l *refusalLog) warn(key, format string, args ...any) {
	l.count.Add(1)
	l.mu.Lock()
	if _, ok := l.seen[key]; ok {
		l.mu.Unlock()
		return
	}
	if len(l.seen) >= maxRefusalKeys {
		clear(l.seen)
	}
	l.seen[key] = struct{}{}
	l.mu.Unlock()
	l.log.Warn(fmt.Sprintf(format, args...), "source", "raft-transport")
}
