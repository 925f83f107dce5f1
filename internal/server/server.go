// Package server is the running server behind a lockkv.Server: the
// listeners and their accept loops, the event loop that serves plain TCP
// on Linux (aeloop_linux.go), each other connection's reader and writer,
// the command goroutine that alone touches the engine (the event loop,
// or Server.loop: its batching and arrival order, the work it serves
// while a script is busy), TLS, and the hosting of the parts a
// configuration adds (a cluster node, the metrics port). The root package checks a Config and hands it over; everything
// here runs once Start is called.
package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/host"
	"github.com/lockkv/lockkv/internal/rdbrestore"
	"github.com/lockkv/lockkv/internal/redisconf"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// Config is what a server runs with: the root package's Config, checked
// by lockkv.NewServer, with the engine's settings already built from it.
type Config struct {
	// Addr is the plain TCP address; ignored with TLSOnly.
	Addr string
	// RequirePass is the password a cluster node and an RDB load
	// through the log authenticate with.
	RequirePass string
	// Clock is the server's time source.
	Clock store.Clock
	// Logger receives the server's logs; nil discards them. Records
	// below Engine.LogLevel are dropped in front of it.
	Logger *slog.Logger
	// Engine are the engine's settings (Engine.LogLevel set).
	Engine *config.Config
	// Cluster and Metrics start a cluster node and the metrics port;
	// nil: none.
	Cluster Cluster
	Metrics Metrics

	// The TLS listener and its files, as lockkv.Config has them.
	TLSAddr                                string
	TLSCertFile, TLSKeyFile, TLSCACertFile string
	TLSAuthClients                         string
	TLSOnly                                bool

	// LoadRDB, ConfigFile and ConfigDirectives are lockkv.Config's: the
	// RDB file to start from, the config file CONFIG REWRITE rewrites and
	// the directives it keeps.
	LoadRDB, ConfigFile string
	ConfigDirectives    map[string]string

	// SlowRequestThreshold and OnSlowRequest report the pipelines whose
	// replies were written the threshold or longer after they arrived
	// (0 or nil: off; see SlowRequest). OnSlowRequest runs on the event
	// loop's goroutine, or the connection's reader goroutine (TLS), and
	// must return quickly. Not timed: the pipelines of a client that
	// blocked meanwhile (BLPOP, WAIT, CLIENT PAUSE), and on a reader
	// goroutine, the replies its writer goroutine writes (a cluster
	// node's write whose commit came after the reader went back to
	// reading).
	SlowRequestThreshold time.Duration
	OnSlowRequest        func(SlowRequest)
}

// Cluster makes the server's cluster node (lockkv.ClusterConfig).
type Cluster interface {
	NewNode(host.Server) (host.Node, error)
}

// Metrics starts the metrics port (lockkv.MetricsConfig).
type Metrics interface {
	StartMetrics(host.Server) (host.Service, error)
}

// Server is one lockkv server's network layer and command loop.
type Server struct {
	cfg Config
	log *slog.Logger
	// eng is built by Start from cfg.Engine, once it knows its listeners
	// and node.
	eng   *engine.Engine
	ln    net.Listener // plain TCP; nil with TLSOnly
	tlsLn net.Listener // nil without TLS
	reqs  chan request
	// applies carries the replication layer's work (Raft apply,
	// leadership changes): the loop takes it before client requests, so
	// committed entries, and the clients waiting on them, never queue
	// behind a backlog of new commands.
	applies chan request
	quit    chan struct{}
	node    host.Node // nil on a standalone server
	loopWG  sync.WaitGroup
	connWG  sync.WaitGroup

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	done   chan struct{}

	// maxBulk and queryLimit mirror proto-max-bulk-len and
	// client-query-buffer-limit for the connection readers.
	maxBulk    atomic.Int64
	queryLimit atomic.Int64
	// busySince is when the command goroutine took up the work it is
	// doing (monoNow), 0 while it waits for work: the measure of a stall
	// the replication watchdog reads (stalled).
	busySince atomic.Int64
	// arrival shows the loop the input its readers have not handed over
	// (arrival_linux.go).
	arrival arrivals

	// held are requests that arrived while a script was busy and must wait
	// for it: its own client's, and Do callbacks (command goroutine only).
	held []request
	// queued are the requests runArrived took with the one running and
	// has not run yet: a busy script serves them too (serveWhileBusy),
	// marking them reqTaken.
	queued []request
	// gathered is the loop's buffer of requests taken together.
	gathered []request

	// metrics is the metrics port, when Config.Metrics is set.
	metrics host.Service

	// ae is the event loop (aeloop_linux.go), nil where Server.loop runs
	// instead (LOCKKV_AELOOP=off, no plain listener, other systems).
	ae *aeLoop

	// onBusy is the engine's OnBusy (serveWhileBusy; a test may wrap it,
	// on the command goroutine).
	onBusy func()
}

type request struct {
	c    *conn
	b    *batch // nil for connect/close events
	kind int
	fn   func()
}

const (
	reqBatch = iota
	reqConnect
	reqClose
	reqCall
	// reqTaken marks a queued request a busy script already served.
	reqTaken = -1
)

// New returns a server for cfg, which lockkv.NewServer checked; Start
// makes it listen.
func New(cfg Config) *Server {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	ecfg := cfg.Engine
	level := ecfg.LogLevel
	var log *slog.Logger
	if cfg.Logger == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: level}))
	} else {
		log = slog.New(levelHandler{cfg.Logger.Handler(), level})
	}
	s := &Server{
		cfg:      cfg,
		log:      log,
		reqs:     make(chan request, 1024),
		applies:  make(chan request, 16),
		gathered: make([]request, 0, 64),
		quit:     make(chan struct{}),
		conns:    map[*conn]struct{}{},
		done:     make(chan struct{}),
	}
	s.maxBulk.Store(ecfg.ProtoMaxBulkLen)
	s.queryLimit.Store(ecfg.ClientQueryBufferLimit)
	s.onBusy = s.serveWhileBusy
	return s
}

// newEngine builds the engine (Start) for the listeners bound and the
// cluster node opened (nil on a standalone server).
func (s *Server) newEngine(node host.Node) (*engine.Engine, error) {
	o := engine.Options{
		Config: s.cfg.Engine,
		Clock:  s.cfg.Clock,
		Logger: s.log,
		// SHUTDOWN closes the server; Close waits for the command
		// goroutine, which is the caller, so it runs on its own goroutine.
		Shutdown: func() {
			s.log.Info("SHUTDOWN requested by a client")
			go s.Close()
		},
		OnBusy: func() { s.onBusy() },
		ScriptLog: func(level int, msg string) {
			// redis.LOG_DEBUG, LOG_VERBOSE, LOG_NOTICE, LOG_WARNING.
			lv := [...]slog.Level{slog.LevelDebug, slog.LevelDebug + 2, slog.LevelInfo, slog.LevelWarn}[min(max(level, 0), 3)]
			s.log.Log(context.Background(), lv, msg, "source", "script")
		},
		Listeners:   s.listeners(),
		SampleLocks: s.cfg.Metrics != nil, // the metrics port reports them
	}
	if s.cfg.ConfigFile != "" {
		o.Rewrite = s.rewriteConfig
	}
	if node != nil {
		o.Replication = &engine.Replication{
			Cluster:   node,
			Log:       node,
			Origin:    node.Origin(),
			Admin:     node,
			Transfer:  node,
			Lag:       node,
			Forwarder: node.Forwarder(),
		}
	}
	return engine.New(o)
}

// serveWhileBusy runs on the command goroutine, from inside a script that
// is past busy-reply-threshold (Redis's processEventsWhileBlocked). It
// serves the requests waiting now: other clients' commands get -BUSY
// unless they may run (SCRIPT KILL, FUNCTION STATS, ...). Requests of the
// script's own client wait until the script returns, in order.
func (s *Server) serveWhileBusy() {
	caller := s.eng.ScriptCaller()
	for j, r := range s.queued {
		if r.kind == reqTaken {
			continue
		}
		s.queued[j].kind = reqTaken
		if r.kind == reqCall || (r.c != nil && r.c.client != nil && r.c.client == caller) {
			s.held = append(s.held, r)
			continue
		}
		s.handle(r)
	}
	for i := 0; i < 512; i++ {
		select {
		case r := <-s.reqs:
			if r.kind == reqCall || (r.c != nil && r.c.client != nil && r.c.client == caller) {
				s.held = append(s.held, r)
				continue
			}
			s.handle(r)
			continue
		case <-s.quit:
			s.eng.AbortScript()
		default:
		}
		break
	}
	s.eng.FlushOutputs()
}

// handleApplies handles the replication layer's work waiting (Raft's
// applies, Do), each followed by the requests a busy script it ran held
// (a script applied from the log, or run by a Do): nothing else would
// serve them until some later client request.
func (s *Server) handleApplies() {
	for len(s.applies) > 0 {
		s.handleApply(<-s.applies)
	}
}

// handleApply handles one of the replication layer's requests, then what
// a busy script it ran held.
func (s *Server) handleApply(r request) {
	s.handle(r)
	s.handleHeld()
}

// handleHeld serves the requests held back while a script was busy.
func (s *Server) handleHeld() {
	for len(s.held) > 0 {
		r := s.held[0]
		s.held[0] = request{}
		s.held = s.held[1:]
		s.handle(r)
	}
	s.held = nil
}

// Start listens on the configured addresses and serves clients in the
// background. A cluster node first checks, locks and opens its data
// directory, so that a directory in use or unusable is an error before
// the client port opens.
func (s *Server) Start() error {
	var tlsServer, tlsPeer *tls.Config
	if s.cfg.tlsEnabled() {
		var err error
		if tlsServer, tlsPeer, err = s.cfg.loadTLS(); err != nil {
			return err
		}
	}
	var rdb []byte
	if s.cfg.LoadRDB != "" && s.cfg.Cluster == nil {
		var err error
		if rdb, err = os.ReadFile(s.cfg.LoadRDB); err != nil {
			return err
		}
	}
	if s.cfg.Cluster != nil {
		h := s.host()
		if s.cfg.TLSOnly {
			h.ClientTLS = tlsPeer
		}
		node, err := s.cfg.Cluster.NewNode(h)
		if err != nil {
			return err
		}
		if err := node.Open(); err != nil {
			node.Shutdown()
			return err
		}
		s.node = node
	}
	var ln, tlsLn net.Listener
	fail := func(err error) error {
		if ln != nil {
			ln.Close()
		}
		if tlsLn != nil {
			tlsLn.Close()
		}
		if s.node != nil {
			s.node.Shutdown()
		}
		return err
	}
	if !s.cfg.TLSOnly {
		var err error
		if ln, err = net.Listen("tcp", s.cfg.Addr); err != nil {
			return fail(err)
		}
	}
	if tlsServer != nil {
		addr := s.cfg.TLSAddr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		raw, err := net.Listen("tcp", addr)
		if err != nil {
			return fail(err)
		}
		tlsLn = tls.NewListener(raw, tlsServer)
	}
	// The address given to the other members and, by default, to clients:
	// the plain one, or the TLS one when it is the only one.
	serving := ln
	if serving == nil {
		serving = tlsLn
	}
	s.ln, s.tlsLn = ln, tlsLn
	eng, err := s.newEngine(s.node)
	if err != nil {
		return fail(err)
	}
	s.eng = eng
	if s.cfg.LoadRDB != "" && s.node == nil {
		loaded, expired, err := s.eng.LoadRDB(rdb, s.cfg.Clock.Now().UnixMilli())
		if err != nil {
			return fail(fmt.Errorf("lockkv: loading %s: %w", s.cfg.LoadRDB, err))
		}
		s.log.Info("DB loaded from disk", "path", s.cfg.LoadRDB, "keys", loaded, "expired_skipped", expired)
	}
	s.loopWG.Add(1)
	if s.startAE() {
		go s.ae.run()
	} else {
		go s.loop()
	}
	if s.node != nil {
		// Raft may restore a snapshot and replay the log through the
		// command goroutine while it starts.
		if err := s.node.Start(serving.Addr().String()); err != nil {
			if ln != nil {
				ln.Close()
			}
			if tlsLn != nil {
				tlsLn.Close()
			}
			s.node.Shutdown() // the loop still runs: Raft may apply through it
			close(s.quit)
			s.loopWG.Wait()
			return err
		}
	}
	for _, l := range []net.Listener{ln, tlsLn} {
		if l != nil {
			s.loopWG.Add(1)
			go s.acceptLoop(l)
		}
	}
	if s.cfg.Metrics != nil {
		m, err := s.cfg.Metrics.StartMetrics(s.host())
		if err != nil {
			s.Close()
			return err
		}
		s.mu.Lock()
		s.metrics = m
		s.mu.Unlock()
	}
	if ln != nil {
		s.log.Info("lockkv listening", "addr", ln.Addr().String())
	}
	if s.cfg.LoadRDB != "" && s.node != nil {
		s.loopWG.Add(1)
		go s.loadRDBThroughLog(s.cfg.LoadRDB)
	}
	if tlsLn != nil {
		s.log.Info("lockkv listening for TLS", "addr", tlsLn.Addr().String(), "tls-auth-clients", s.cfg.tlsAuthClients())
	}
	if s.eng.Config.ProtectedMode && s.cfg.RequirePass == "" && !(loopbackOnly(ln) && loopbackOnly(tlsLn)) {
		s.log.Warn("protected mode: no password is set, so only clients of the loopback interface are accepted; set --requirepass or --protected-mode no")
	}
	return nil
}

// rewriteConfig is CONFIG REWRITE (command goroutine): the running
// values of the settings into ConfigFile, Redis's way.
func (s *Server) rewriteConfig() error {
	return redisconf.Rewrite(s.cfg.ConfigFile, s.eng.Config.RewriteLines(), func(name string) (string, redisconf.Kind) {
		if opt, ok := config.SettingName(name); ok {
			return opt, redisconf.Option
		}
		if opt, ok := s.cfg.ConfigDirectives[name]; ok {
			if opt != "" {
				return opt, redisconf.Option
			}
			return name, redisconf.Keep
		}
		if name == "include" {
			return name, redisconf.Keep
		}
		return name, redisconf.Unknown
	})
}

// host is what the server gives its cluster node and metrics port.
func (s *Server) host() host.Server {
	return host.Server{
		Run:       s.run,
		RunWithin: s.runWithin,
		Clock:     s.cfg.Clock,
		Logger:    s.log,
		Password:  s.cfg.RequirePass,
		Stalled:   s.stalled,
		Node:      s.node,
	}
}

// listeners are the listeners bound, as CONFIG GET port, tls-port, bind
// and the tls-* files report them.
func (s *Server) listeners() *engine.Listeners {
	l := &engine.Listeners{} // Port 0, Redis's: no plain TCP
	var binds []string
	add := func(b string) {
		for _, have := range binds {
			if have == b {
				return
			}
		}
		binds = append(binds, b)
	}
	if s.ln != nil {
		l.Port = s.ln.Addr().(*net.TCPAddr).Port
		add(bindOf(s.cfg.Addr, s.ln.Addr()))
	}
	if s.tlsLn != nil {
		l.TLSPort = s.tlsLn.Addr().(*net.TCPAddr).Port
		l.TLSCertFile, l.TLSKeyFile, l.TLSCACertFile = s.cfg.TLSCertFile, s.cfg.TLSKeyFile, s.cfg.TLSCACertFile
		l.TLSAuthClients = s.cfg.tlsAuthClients()
		add(bindOf(s.cfg.TLSAddr, s.tlsLn.Addr()))
	}
	l.Bind = strings.Join(binds, " ")
	return l
}

// bindOf is Redis's bind for a listener: the address it listens on, "*"
// for every IPv4 address, "* -::*" for every address.
func bindOf(configured string, a net.Addr) string {
	if host, _, err := net.SplitHostPort(configured); err == nil && host == "" {
		return "* -::*"
	}
	ta, ok := a.(*net.TCPAddr)
	switch {
	case !ok:
		return "*"
	case ta.IP.IsUnspecified() && ta.IP.To4() != nil:
		return "*"
	case ta.IP.IsUnspecified():
		return "::*"
	}
	return ta.IP.String()
}

// loopbackOnly reports whether a listener (nil: none) only hears the
// loopback interface.
func loopbackOnly(l net.Listener) bool {
	if l == nil {
		return true
	}
	ta, ok := l.Addr().(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// Addr returns the address the server listens on for plain TCP
// ("127.0.0.1:port"); "" when it serves TLS only.
func (s *Server) Addr() string {
	if s.ln == nil {
		if s.tlsLn != nil {
			return ""
		}
		return s.cfg.Addr
	}
	return s.ln.Addr().String()
}

// TLSAddr returns the address of the TLS listener, "" without one.
func (s *Server) TLSAddr() string {
	if s.tlsLn == nil {
		return ""
	}
	return s.tlsLn.Addr().String()
}

// Do runs fn on the command goroutine, between commands, and waits for it.
// It is how embedding code and tests touch the keyspace directly.
func (s *Server) Do(fn func(e *engine.Engine)) { s.run(fn) }

// run runs fn on the command goroutine like Do; it reports false when the
// server stopped before fn could run.
func (s *Server) run(fn func(e *engine.Engine)) bool {
	done := make(chan struct{})
	select {
	case s.applies <- request{kind: reqCall, fn: func() { fn(s.eng); close(done) }}:
		if s.ae != nil {
			s.ae.wake()
		}
		<-done
		return true
	case <-s.quit:
		return false
	}
}

// runWithin is run waiting at most timeout for fn to be taken up and
// to finish; false when it was not (fn may still run later).
func (s *Server) runWithin(timeout time.Duration, fn func(e *engine.Engine)) bool {
	done := make(chan struct{})
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s.applies <- request{kind: reqCall, fn: func() { fn(s.eng); close(done) }}:
		if s.ae != nil {
			s.ae.wake()
		}
	case <-s.quit:
		return false
	case <-t.C:
		return false
	}
	select {
	case <-done:
		return true
	case <-s.quit:
	case <-t.C:
	}
	return false
}

// Node is the server's cluster node, nil on a standalone server and
// before Start.
func (s *Server) Node() host.Node { return s.node }

// Removed is closed once this cluster node was removed from its cluster
// (RAFT.NODE REMOVE); nil on a standalone server, and before Start.
func (s *Server) Removed() <-chan struct{} {
	if s.node == nil {
		return nil
	}
	return s.node.Removed()
}

// HandOver asks another member to lead when this cluster node leads
// (before a planned stop) and reports whether one did within timeout;
// false on a standalone server.
func (s *Server) HandOver(timeout time.Duration) bool {
	return s.node != nil && s.node.HandOver(timeout)
}

// MetricsAddr is the address of the metrics port, "" without one.
func (s *Server) MetricsAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.metrics == nil {
		return ""
	}
	return s.metrics.Addr()
}

// Close stops listening, closes every connection and stops the command
// goroutine. It waits for all of them.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	metrics := s.metrics
	s.mu.Unlock()
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	}
	if s.tlsLn != nil {
		if e := s.tlsLn.Close(); err == nil {
			err = e
		}
	}
	if metrics != nil {
		_ = metrics.Close()
	}
	for _, c := range conns {
		c.shutdown()
	}
	s.connWG.Wait()
	if s.node != nil {
		// Raft applies through the command goroutine: stop it first.
		if e := s.node.Shutdown(); e != nil && err == nil {
			err = e
		}
	}
	close(s.quit)
	if s.ae != nil {
		s.ae.wake()
	}
	s.loopWG.Wait()
	close(s.done)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Done is closed once the server has shut down (Close, or a client's
// SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.done }

// errNoDup is the event loop's error (aeLoop.adopt) when it could not
// duplicate an accepted connection's descriptor; the connection is still
// open.
type errNoDup struct{ err error }

func (e errNoDup) Error() string { return e.err.Error() }
func (e errNoDup) Unwrap() error { return e.err }

func (s *Server) acceptLoop(ln net.Listener) {
	defer s.loopWG.Done()
	var backoff time.Duration
	// failed logs a failed accept and backs off before the next accept,
	// as net/http does, so that running out of descriptors does not spin
	// the loop or flood the log. Redis logs "Accepting client connection:
	// ..." and counts nothing (rejected_connections is maxclients' and
	// protected mode's).
	failed := func(err error) {
		if backoff == 0 {
			backoff = 5 * time.Millisecond
		} else if backoff < time.Second {
			backoff *= 2
		}
		s.log.Warn("accept failed", "err", err)
		time.Sleep(backoff)
	}
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			failed(err) // EMFILE and the like
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		if s.ae != nil && ln == s.ln {
			s.mu.Unlock()
			err := s.ae.adopt(nc)
			if err == nil {
				backoff = 0
				continue
			}
			if !errors.As(err, new(errNoDup)) {
				failed(err)
				continue
			}
			// The event loop could not take it (EMFILE on a duplicate
			// of its descriptor): it is served on goroutines, as a TLS
			// connection is, rather than dropped. While descriptors stay
			// short the next accept fails and backs off.
			s.log.Warn("event loop could not take a connection, serving it on goroutines", "addr", nc.RemoteAddr().String(), "err", err)
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				nc.Close()
				return
			}
		}
		backoff = 0
		c := newConn(s, nc)
		s.conns[c] = struct{}{}
		s.connWG.Add(1)
		s.mu.Unlock()
		go c.serve()
	}
}

// loop is the command goroutine: it alone touches the engine.
func (s *Server) loop() {
	defer s.loopWG.Done()
	hz := s.eng.Config.Hz
	if hz <= 0 {
		hz = 10
	}
	tick := time.NewTicker(time.Second / time.Duration(hz))
	defer tick.Stop()
	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	defer s.arrival.shut() // the readers have stopped (Close)
	for {
		s.busySince.Store(0)
		select {
		case r := <-s.applies:
			s.busySince.Store(monoNow())
			s.handleApply(r)
		case r := <-s.reqs:
			n := s.runArrived(r)
			// Then what arrives meanwhile, up to a bound, before the
			// outputs go out.
		drain:
			for i := 0; i < 512 && n < 512; i++ {
				s.busySince.Store(monoNow())
				select {
				case r := <-s.applies:
					s.handleApply(r)
					continue
				default:
				}
				select {
				case r := <-s.reqs:
					n += s.runArrived(r)
				default:
					break drain
				}
			}
		case <-tick.C:
			s.busySince.Store(monoNow())
			s.eng.Cron()
		case <-wake.C:
			s.busySince.Store(monoNow())
			s.eng.Cron()
		case <-s.quit:
			return
		}
		s.eng.FlushOutputs()
		s.maxBulk.Store(s.eng.Config.ProtoMaxBulkLen)
		s.queryLimit.Store(s.eng.Config.ClientQueryBufferLimit)
		if h := s.eng.Config.Hz; h != hz && h > 0 {
			// CONFIG SET hz: periodic work (active expiry, timeouts) runs
			// hz times a second, as in Redis.
			hz = h
			tick.Reset(time.Second / time.Duration(hz))
		}
		if at := s.eng.NextWakeup(); at > 0 {
			d := time.Duration(at-s.eng.NowMs()) * time.Millisecond
			if d < 0 {
				d = 0
			}
			wake.Reset(d)
		}
	}
}

// runArrived runs r and the requests waiting with it, in the order they
// arrived, and returns how many it ran.
//
// Each connection's reader hands its requests over on its own, so the
// order in which they reach the loop is the Go scheduler's: when several
// sockets become readable together, the netpoller wakes their readers
// last-ready first (its list is a stack), and a reader that was busy (or
// preempted) when its client's next request arrived hands it over late.
// Redis's one event loop runs what arrived first first: a client that
// sends SUBSCRIBE on one connection and then PUBLISH on another gets its
// message. So before running, the loop waits for the readers that hold
// input or have unread bytes in their sockets to hand them over
// (awaitEarlier), then runs the batches in the order their bytes reached
// the kernel (batch.arrived); other requests keep their places.
func (s *Server) runArrived(r request) int {
	got := append(s.gathered[:0], r)
	got = s.gather(got)
	if r.kind == reqBatch {
		got = s.awaitEarlier(got)
	}
	orderByArrival(got)
	// Bring the keys of all those pipelines into cache together (their
	// misses overlap), then run them.
	s.prefetch(got)
	for i, r := range got {
		if r.kind == reqTaken {
			got[i] = request{}
			continue
		}
		s.busySince.Store(monoNow())
		s.queued = got[i+1:]
		s.handle(r)
		s.handleHeld()
		s.queued = nil
		got[i] = request{}
		// What Raft handed over meanwhile goes first: after a long
		// request, a node that lost leadership stops serving before it
		// answers the next one.
		s.handleApplies()
	}
	s.gathered = got[:0]
	return len(got)
}

// gather appends the requests waiting, without blocking, up to got's
// capacity.
func (s *Server) gather(got []request) []request {
	for len(got) < cap(got) {
		select {
		case r := <-s.reqs:
			got = append(got, r)
		default:
			return got
		}
	}
	return got
}

// orderByArrival sorts the batches of reqs by arrival, stably (a
// connection's batches keep their order), leaving other requests where
// they are.
func orderByArrival(reqs []request) {
	for i := 1; i < len(reqs); i++ {
		if reqs[i].kind != reqBatch {
			continue
		}
		r := reqs[i]
		j := i
		for k := i - 1; k >= 0; k-- {
			if reqs[k].kind != reqBatch {
				continue
			}
			if reqs[k].b.arrived <= r.b.arrived {
				break
			}
			reqs[j] = reqs[k]
			j = k
		}
		reqs[j] = r
	}
}

func (s *Server) handle(r request) {
	switch r.kind {
	case reqBatch:
		b := r.b
		if b.timed {
			b.st.taken = wallNow()
		}
		s.eng.ProcessBatch(r.c.client, b.cmds, b.ack)
	case reqConnect:
		r.c.keepalive = s.eng.Config.TCPKeepalive
		r.c.client = s.eng.Accept(r.c) // nil: turned away
		close(r.c.ready)
	case reqClose:
		if r.c.client != nil {
			s.eng.FreeClient(r.c.client)
		}
	case reqCall:
		r.fn()
	}
}

// prefetch passes the gathered pipelines to the engine's key prefetch.
func (s *Server) prefetch(reqs []request) {
	if len(reqs) < 2 {
		if len(reqs) == 1 && reqs[0].kind == reqBatch && reqs[0].c.client != nil {
			s.eng.PrefetchAlone(reqs[0].c.client, reqs[0].b.cmds)
		}
		return
	}
	for _, r := range reqs {
		if r.kind == reqBatch && r.c.client != nil {
			s.eng.Prefetch(r.c.client, r.b.cmds)
		}
	}
	s.eng.PrefetchFlush()
}

// procStart anchors monoNow.
var procStart = time.Now()

// monoNow is a monotonic clock reading in nanoseconds, never 0.
func monoNow() int64 { return int64(time.Since(procStart)) + 1 }

// stalled is how long the command goroutine has been held by the work it
// is doing, for the replication watchdog: 0 while it waits for work or
// applies a committed entry (every node does that alike; a busy script
// run from the log included). A busy script a client runs here alone,
// DEBUG SLEEP, a slow read or a snapshot count: serving -BUSY meanwhile
// (serveWhileBusy) is no progress.
func (s *Server) stalled() time.Duration {
	since := s.busySince.Load()
	if since == 0 || s.eng.InApply() {
		return 0
	}
	return time.Duration(monoNow() - since)
}

// submit hands a request to the command goroutine.
func (s *Server) submit(r request) bool {
	select {
	case s.reqs <- r:
		if s.ae != nil {
			s.ae.wake()
		}
		return true
	case <-s.quit:
		return false
	}
}

// loadRDBThroughLog is LoadRDB on a cluster node: when this node leads
// (waiting up to a minute for an election) and its keyspace is empty, it
// replays the file through its own client port, so the keys are
// committed to the log like any write and every member applies them.
func (s *Server) loadRDBThroughLog(path string) {
	defer s.loopWG.Done()
	log := s.log.With("load_rdb", path)
	data, err := os.ReadFile(path)
	if err != nil {
		log.Error("RDB file not loaded", "err", err)
		return
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var leads, elsewhere, empty bool
		if !s.run(func(e *engine.Engine) {
			leads = e.IsLeader()
			if l, ok := e.Cluster().Leader(); ok && !l.Self {
				elsewhere = true
			}
			empty = true
			for _, db := range e.DBs {
				empty = empty && db.Len() == 0
			}
		}) {
			return
		}
		if elsewhere {
			log.Info("RDB file not loaded here: another node leads (run lockkv restore-rdb against it)")
			return
		}
		if leads {
			if !empty {
				log.Info("RDB file not loaded: the keyspace is not empty (loaded before?)")
				return
			}
			break
		}
		if time.Now().After(deadline) {
			log.Warn("RDB file not loaded: no leader within a minute")
			return
		}
		select {
		case <-s.quit:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	if s.ln == nil {
		log.Error("RDB file not loaded: a cluster node loads it through its plain client port, and has none (use lockkv restore-rdb --tls)")
		return
	}
	nc, err := net.Dial("tcp", s.ln.Addr().String())
	if err != nil {
		log.Error("RDB file not loaded", "err", err)
		return
	}
	defer nc.Close()
	if s.cfg.RequirePass != "" {
		var w resp.Writer
		w.Array(2)
		w.BulkString("AUTH")
		w.BulkString(s.cfg.RequirePass)
		nc.Write(w.B)
	}
	rw := struct {
		io.Reader
		io.Writer
	}{bufio.NewReader(nc), nc}
	if s.cfg.RequirePass != "" {
		if reply, err := resp.ReadReply(rw.Reader.(*bufio.Reader), nil); err != nil || reply[0] == '-' {
			log.Error("RDB file not loaded: AUTH failed", "err", err, "reply", string(reply))
			return
		}
	}
	st, err := rdbrestore.Restore(rw, data)
	if err != nil {
		log.Error("RDB file loaded in part", "keys", st.Keys, "err", err)
		return
	}
	log.Info("DB loaded through the log", "keys", st.Keys, "functions", st.Functions)
}
