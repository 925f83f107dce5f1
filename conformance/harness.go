// Package conformance is lockkv's parity suite: every case sends the same
// commands to lockkv and to a real Redis and requires the same replies,
// byte for byte unless a case says otherwise (DoSorted for replies whose
// order Redis leaves undefined, DoApprox for TTL-like integers).
//
// By default the suite starts lockkv in-process and redis-server (found on
// PATH) on free ports. Environment variables point it elsewhere:
//
//	LOCKKV_ADDR=host:port   test this lockkv (or any server) instead
//	REDIS_ADDR=host:port    compare against this Redis instead
//
// Without redis-server on PATH (and no REDIS_ADDR) the parity cases skip,
// loudly; a redis-server that is there but does not start fails the run.
package conformance

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
)

// Conn is a raw RESP connection (testutil's).
type Conn = testutil.Conn

// Value is a parsed reply (testutil's).
type Value = testutil.Value

// Dial connects to addr.
func Dial(addr string) (*Conn, error) { return testutil.Dial(addr) }

// Equal reports whether a and b are the same reply.
func Equal(a, b Value) bool { return testutil.Equal(a, b) }

var (
	lockkvAddr string
	redisAddr  string
	skipReason string

	comparisons atomic.Int64
	divergences atomic.Int64
)

// LockkvAddr returns the address of the lockkv under test.
func LockkvAddr() string { return lockkvAddr }

// RedisAddr returns the address of the reference Redis, or "".
func RedisAddr() string { return redisAddr }

// Main starts the servers, runs the suite and reports its size; a test
// package's TestMain calls it: func TestMain(m *testing.M) { os.Exit(conformance.Main(m)) }.
func Main(m *testing.M) int {
	lockkvAddr = os.Getenv("LOCKKV_ADDR")
	if lockkvAddr == "" {
		// DEBUG is enabled on both servers (redis-server below too).
		srv, err := lockkv.NewServer(lockkv.Config{EnableDebugCommand: "yes"})
		if err == nil {
			err = srv.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance: cannot start lockkv:", err)
			return 1
		}
		defer srv.Close()
		lockkvAddr = srv.Addr()
	}
	redisAddr = os.Getenv("REDIS_ADDR")
	if redisAddr == "" {
		if _, err := exec.LookPath("redis-server"); err != nil {
			// The one reason the parity cases skip: no Redis installed.
			// One that is installed but does not start fails the run.
			skipReason = "redis-server not found on PATH"
			fmt.Fprintf(os.Stderr, "\n!!!!!!!!\n!!! conformance: %s\n!!! THE PARITY SUITE IS SKIPPED. Install redis-server (apt-get install -y redis-server) to run it.\n!!!!!!!!\n\n", skipReason)
		} else {
			addr, stop, err := startRedis()
			if err != nil {
				fmt.Fprintln(os.Stderr, "conformance: cannot start redis-server:", err)
				return 1
			}
			defer stop()
			redisAddr = addr
		}
	}
	code := m.Run()
	if redisAddr != "" {
		fmt.Printf("conformance: %d comparisons against Redis, %d divergences\n", comparisons.Load(), divergences.Load())
	}
	return code
}

// startRedis runs redis-server on a free port with persistence off.
func startRedis() (addr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "lockkv-conformance-redis")
	if err != nil {
		return "", nil, err
	}
	addr, kill, err := startRedisIn(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return addr, func() { kill(); os.RemoveAll(dir) }, nil
}

// startRedisIn runs redis-server on a free port with persistence off and
// dir as its directory (it loads dir/dump.rdb if there is one).
func startRedisIn(dir string) (addr string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, fmt.Errorf("redis-server not found on PATH")
	}
	free, err := testnet.Addr()
	if err != nil {
		return "", nil, err
	}
	_, port, _ := net.SplitHostPort(free)
	cmd := exec.Command(bin,
		"--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"),
		"--enable-debug-command", "yes")
	// Redis dies with the test binary, even when it is killed (on Linux),
	// and is in a process group of its own: a terminal's or job control's
	// signals to the test's group do not stop it halfway through the suite.
	cmd.SysProcAttr = testutil.ChildProcAttr(true)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	addr = free
	if err := testutil.Poll(10*time.Second, func() error { return testutil.Ping(addr) }); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return "", nil, fmt.Errorf("redis-server did not start on %s: %v", addr, err)
	}
	return addr, func() {
		cmd.Process.Kill()
		cmd.Wait()
	}, nil
}

// Pair is a connection to lockkv (L) and one to Redis (R). Every Do sends
// the same command to both and fails the test unless the replies agree.
type Pair struct {
	t    testing.TB
	L, R *Conn
	// slowest is the longest round trip of a command sent to both so far
	// (see DoLease).
	slowest time.Duration
}

// NewPair connects to both servers and flushes all their data, so each test
// starts from an empty keyspace. It skips the test when redis-server is
// not installed (and REDIS_ADDR is unset).
func NewPair(t testing.TB) *Pair {
	t.Helper()
	p := Connect(t)
	p.Do("FLUSHALL")
	return p
}

// Connect opens another connection pair without flushing (for a second
// client in the same test).
func Connect(t testing.TB) *Pair {
	t.Helper()
	if redisAddr == "" {
		t.Skip("conformance: no Redis to compare against: " + skipReason)
	}
	l, err := Dial(lockkvAddr)
	if err != nil {
		t.Fatalf("dial lockkv: %v", err)
	}
	r, err := Dial(redisAddr)
	if err != nil {
		l.Close()
		t.Fatalf("dial redis: %v", err)
	}
	t.Cleanup(func() { l.Close(); r.Close() })
	return &Pair{t: t, L: l, R: r}
}

func (p *Pair) both(args []string) (Value, Value) {
	p.t.Helper()
	start := time.Now()
	if err := p.L.Send(args...); err != nil {
		p.t.Fatalf("%q: lockkv send: %v", args, err)
	}
	if err := p.R.Send(args...); err != nil {
		p.t.Fatalf("%q: redis send: %v", args, err)
	}
	lv, rv := p.read(args)
	if d := time.Since(start); d > p.slowest {
		p.slowest = d
	}
	return lv, rv
}

func (p *Pair) read(what any) (Value, Value) {
	p.t.Helper()
	rv, err := p.R.Read(10 * time.Second)
	if err != nil {
		p.t.Fatalf("%q: redis read: %v", what, err)
	}
	lv, err := p.L.Read(10 * time.Second)
	if err != nil {
		p.t.Fatalf("%q: lockkv read: %v (redis said %v)", what, err, rv)
	}
	return lv, rv
}

func (p *Pair) check(what any, lv, rv Value, same bool) {
	p.t.Helper()
	comparisons.Add(1)
	if !same {
		divergences.Add(1)
		p.t.Errorf("%q:\n  lockkv: %v\n  redis:  %v", what, lv, rv)
	}
}

// Do sends args to both servers and requires identical replies. It returns
// Redis's reply.
func (p *Pair) Do(args ...string) Value {
	p.t.Helper()
	lv, rv := p.both(args)
	if len(args) > 0 && strings.EqualFold(args[0], "hello") {
		// HELLO's reply carries the client ID, which differs between
		// servers: compare everything else.
		p.check(args, lv, rv, Equal(maskHelloID(lv), maskHelloID(rv)))
		return rv
	}
	p.check(args, lv, rv, Equal(lv, rv))
	return rv
}

func maskHelloID(v Value) Value {
	if v.Kind != '%' && v.Kind != '*' {
		return v
	}
	out := v
	out.Elems = append([]Value(nil), v.Elems...)
	for i := 0; i+1 < len(out.Elems); i += 2 {
		if out.Elems[i].Str == "id" {
			out.Elems[i+1] = Value{Kind: ':', Str: "ID"}
		}
	}
	return out
}

// DoSorted is Do for replies whose element order is undefined.
func (p *Pair) DoSorted(args ...string) Value {
	p.t.Helper()
	lv, rv := p.both(args)
	p.check(args, lv, rv, Equal(lv.Sorted(), rv.Sorted()))
	return rv
}

// DoPairsSorted is Do for flat key/value arrays (HGETALL under RESP2) whose
// pair order is undefined.
func (p *Pair) DoPairsSorted(args ...string) Value {
	p.t.Helper()
	lv, rv := p.both(args)
	p.check(args, lv, rv, Equal(lv.SortedPairs(), rv.SortedPairs()))
	return rv
}

// DoApprox is Do where integer replies (TTL, PTTL, OBJECT IDLETIME) may
// differ by at most delta.
func (p *Pair) DoApprox(delta int64, args ...string) Value {
	p.t.Helper()
	lv, rv := p.both(args)
	p.check(args, lv, rv, approxEqual(lv, rv, delta))
	return rv
}

// DoLease is DoApprox for a reply that is a lease's remaining milliseconds
// (PTTL, or a lock script answering one) for a lease set by an earlier
// command of this pair. Each server counts the lease down from its own
// moment of running the setting command to its own moment of running this
// one, and each moment lies within that command's round trip: the replies
// differ by at most the slowest round trip so far plus this one's (and a
// millisecond of rounding), however slow the machine is, and by a few
// milliseconds when it is not.
func (p *Pair) DoLease(args ...string) Value {
	p.t.Helper()
	prev, start := p.slowest, time.Now()
	lv, rv := p.both(args)
	p.check(args, lv, rv, approxEqual(lv, rv, int64((prev+time.Since(start))/time.Millisecond)+1))
	return rv
}

// DoShape is Do where only the reply's shape must match: the same types and
// lengths, any contents (RANDOMKEY, SPOP, CLIENT ID, ...).
func (p *Pair) DoShape(args ...string) (Value, Value) {
	p.t.Helper()
	lv, rv := p.both(args)
	p.check(args, lv, rv, sameShape(lv, rv))
	return lv, rv
}

// Send sends args to both servers without reading replies.
func (p *Pair) Send(args ...string) {
	p.t.Helper()
	if err := p.L.Send(args...); err != nil {
		p.t.Fatalf("%q: lockkv send: %v", args, err)
	}
	if err := p.R.Send(args...); err != nil {
		p.t.Fatalf("%q: redis send: %v", args, err)
	}
}

// SendRaw sends raw bytes to both servers.
func (p *Pair) SendRaw(b []byte) {
	p.t.Helper()
	if err := p.L.SendRaw(b); err != nil {
		p.t.Fatalf("lockkv send: %v", err)
	}
	if err := p.R.SendRaw(b); err != nil {
		p.t.Fatalf("redis send: %v", err)
	}
}

// Receive reads the next reply or push message from both and requires them
// to be identical.
func (p *Pair) Receive() Value {
	p.t.Helper()
	lv, rv := p.read("receive")
	p.check("receive", lv, rv, Equal(lv, rv))
	return rv
}

// ReceiveSorted reads the next reply from both and compares it unordered.
func (p *Pair) ReceiveSorted() Value {
	p.t.Helper()
	lv, rv := p.read("receive")
	p.check("receive", lv, rv, Equal(lv.Sorted(), rv.Sorted()))
	return rv
}

// NoReply requires that neither server sends anything within d.
func (p *Pair) NoReply(d time.Duration) {
	p.t.Helper()
	for _, c := range []*Conn{p.L, p.R} {
		if v, err := c.Read(d); err == nil {
			comparisons.Add(1)
			divergences.Add(1)
			p.t.Errorf("%s sent %v, expected nothing", c.Addr, v)
		}
	}
	comparisons.Add(1)
}

// Closed requires that both servers closed the connection (within d).
func (p *Pair) Closed(d time.Duration) {
	p.t.Helper()
	l, r := p.L.Closed(d), p.R.Closed(d)
	p.check("closed", Value{Kind: '+', Str: strconv.FormatBool(l)}, Value{Kind: '+', Str: strconv.FormatBool(r)}, l == r)
}

func approxEqual(a, b Value, delta int64) bool {
	if a.Kind == ':' && b.Kind == ':' {
		x, err1 := strconv.ParseInt(a.Str, 10, 64)
		y, err2 := strconv.ParseInt(b.Str, 10, 64)
		if err1 != nil || err2 != nil {
			return a.Str == b.Str
		}
		d := x - y
		if d < 0 {
			d = -d
		}
		return d <= delta
	}
	if a.Kind != b.Kind || len(a.Elems) != len(b.Elems) || a.Null != b.Null {
		return false
	}
	if len(a.Elems) == 0 {
		return a.Str == b.Str
	}
	for i := range a.Elems {
		if !approxEqual(a.Elems[i], b.Elems[i], delta) {
			return false
		}
	}
	return true
}

func sameShape(a, b Value) bool {
	if a.Kind != b.Kind || a.Null != b.Null || len(a.Elems) != len(b.Elems) {
		return false
	}
	if a.Kind == '-' {
		return a.Str == b.Str
	}
	for i := range a.Elems {
		if !sameShape(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	return true
}
