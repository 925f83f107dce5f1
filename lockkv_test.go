package lockkv_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/admin"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
)

// rawConn is a testutil.Conn for bad-input cases: it sends raw bytes
// and reads the reply line by line, failing t on a network error.
type rawConn struct {
	t *testing.T
	*testutil.Conn
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	return &rawConn{t: t, Conn: testutil.MustDial(t, addr)}
}

func (c *rawConn) send(s string) {
	c.t.Helper()
	if err := c.SendRaw([]byte(s)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// line reads one reply line (without CRLF).
func (c *rawConn) line() string {
	c.t.Helper()
	l, err := c.ReadLine(5 * time.Second)
	if err != nil {
		c.t.Fatalf("read: %v (got %q)", err, l)
	}
	return l
}

func (c *rawConn) expect(want string) {
	c.t.Helper()
	if got := c.line(); got != want {
		c.t.Fatalf("got %q, want %q", got, want)
	}
}

// healthy checks that the server still serves a fresh client.
func healthy(t *testing.T, srv *lockkv.Server) {
	t.Helper()
	c := dialRaw(t, srv.Addr())
	c.send("PING\r\n")
	c.expect("+PONG")
}

func TestGoRedisDefaultOptions(t *testing.T) {
	srv := lockkv.RunT(t)
	ctx := context.Background()
	// Default options: RESP3 (HELLO 3), CLIENT SETINFO on connect.
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if err := rdb.Set(ctx, "lock", "owner-1", 30*time.Second).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if v, err := rdb.Get(ctx, "lock").Result(); err != nil || v != "owner-1" {
		t.Fatalf("GET: %q %v", v, err)
	}
	if _, err := rdb.Get(ctx, "missing").Result(); err != redis.Nil {
		t.Fatalf("GET missing: %v, want redis.Nil", err)
	}
	// The connection speaks RESP3 after HELLO 3.
	info, err := rdb.Do(ctx, "CLIENT", "INFO").Text()
	if err != nil || !strings.Contains(info, " resp=3") {
		t.Fatalf("CLIENT INFO: %q %v", info, err)
	}
	// go-redis's CLIENT SETINFO on connect took (Redis 7.2's fields).
	if !strings.Contains(info, " lib-name=go-redis(") || !strings.Contains(info, " lib-ver="+redis.Version()) {
		t.Fatalf("CLIENT INFO lacks go-redis's CLIENT SETINFO: %q", info)
	}
	id, err := rdb.ClientID(ctx).Result()
	if err != nil || id <= 0 {
		t.Fatalf("CLIENT ID: %d %v", id, err)
	}
	// Pipelines: many commands, replies in order.
	cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < 200; i++ {
			p.Set(ctx, "k"+strconv.Itoa(i), i, 0)
			p.Get(ctx, "k"+strconv.Itoa(i))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	for i := 0; i < 200; i++ {
		if v := cmds[2*i+1].(*redis.StringCmd).Val(); v != strconv.Itoa(i) {
			t.Fatalf("pipeline GET k%d = %q", i, v)
		}
	}
	// Server commands clients use.
	if v, err := rdb.Info(ctx, "replication").Result(); err != nil || !strings.Contains(v, "connected_slaves:0") {
		t.Fatalf("INFO replication: %q %v", v, err)
	}
	if v, err := rdb.ConfigGet(ctx, "maxmemory*").Result(); err != nil || v["maxmemory"] != "0" {
		t.Fatalf("CONFIG GET: %v %v", v, err)
	}
	if err := rdb.Do(ctx, "CLIENT", "SETNAME", "lock-svc").Err(); err != nil {
		t.Fatalf("CLIENT SETNAME: %v", err)
	}
	if n, err := rdb.Wait(ctx, 0, 0).Result(); err != nil || n != 0 {
		t.Fatalf("WAIT 0 0: %d %v", n, err)
	}
	if _, err := rdb.Time(ctx).Result(); err != nil {
		t.Fatalf("TIME: %v", err)
	}
	if v, err := rdb.Do(ctx, "ROLE").Slice(); err != nil || v[0] != "master" {
		t.Fatalf("ROLE: %v %v", v, err)
	}
	if _, err := rdb.Command(ctx).Result(); err != nil {
		t.Fatalf("COMMAND: %v", err)
	}
}

// TestGoRedisClientInfo: go-redis parses CLIENT INFO with Redis 7.2's
// fields and flags (its CLIENT SETINFO on connect, CLIENT NO-TOUCH), and
// WAITAOF answers as a server that keeps nothing on disk.
func TestGoRedisClientInfo(t *testing.T) {
	srv := lockkv.RunT(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	conn := rdb.Conn()
	defer conn.Close()
	if err := conn.Do(ctx, "CLIENT", "NO-TOUCH", "ON").Err(); err != nil {
		t.Fatalf("CLIENT NO-TOUCH: %v", err)
	}
	info, err := conn.ClientInfo(ctx).Result()
	if err != nil {
		t.Fatalf("CLIENT INFO: %v", err)
	}
	if info.Flags&redis.ClientNoTouch == 0 || !strings.HasPrefix(info.LibName, "go-redis(") || info.LibVer != redis.Version() {
		t.Fatalf("CLIENT INFO: flags %b lib-name %q lib-ver %q", info.Flags, info.LibName, info.LibVer)
	}
	if got, err := conn.WaitAOF(ctx, 0, 0, 0).Result(); err != nil || len(got) != 2 || got[0] != 0 || got[1] != 0 {
		t.Fatalf("WAITAOF 0 0 0: %v %v", got, err)
	}
}

func TestGoRedisRESP2AndPassword(t *testing.T) {
	srv := lockkv.RunTWith(t, lockkv.Config{RequirePass: "pw"})
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: "pw", Protocol: proto})
		if err := rdb.Set(ctx, "a", "1", 0).Err(); err != nil {
			t.Fatalf("RESP%d with password: %v", proto, err)
		}
		rdb.Close()
		bad := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: "wrong", Protocol: proto, MaxRetries: -1})
		err := bad.Ping(ctx).Err()
		if err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
			t.Fatalf("RESP%d wrong password: %v", proto, err)
		}
		bad.Close()
	}
	healthy := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer healthy.Close()
	if err := healthy.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("no password: %v", err)
	}
}

func TestRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not on PATH")
	}
	srv := lockkv.RunT(t)
	_, port, _ := net.SplitHostPort(srv.Addr())
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(cli, append([]string{"-h", "127.0.0.1", "-p", port}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "PONG"},
		{[]string{"-3", "PING"}, "PONG"},
		{[]string{"SET", "k", "v"}, "OK"},
		{[]string{"-3", "GET", "k"}, "v"},
		{[]string{"-3", "HELLO", "3"}, "server redis\nversion 7.0.15\nproto 3"},
		{[]string{"GET", "nokey"}, ""},
		{[]string{"ROLE"}, "master\n0"},
		{[]string{"CONFIG", "GET", "databases"}, "databases\n16"},
		{[]string{"NOSUCH"}, "ERR unknown command 'NOSUCH', with args beginning with:"},
	} {
		if got := run(c.args...); !strings.HasPrefix(got, c.want) {
			t.Errorf("redis-cli %v = %q, want prefix %q", c.args, got, c.want)
		}
	}
	if got := run("INFO", "server"); !strings.Contains(got, "redis_version:7.0.15") {
		t.Errorf("redis-cli INFO server = %q", got)
	}
	// A pipe of commands (redis-cli reads stdin).
	cmd := exec.Command(cli, "-h", "127.0.0.1", "-p", port)
	cmd.Stdin = strings.NewReader("SET a 1\nGET a\nCLIENT SETNAME cli\nCLIENT GETNAME\n")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Join(strings.Fields(string(out)), " ") != "OK 1 OK cli" {
		t.Errorf("redis-cli pipe: %q %v", out, err)
	}
}

func TestBadInput(t *testing.T) {
	srv := lockkv.RunT(t)
	other := dialRaw(t, srv.Addr())
	other.send("SET survivor yes\r\n")
	other.expect("+OK")

	for _, c := range []struct{ name, send, want string }{
		{"garbage multibulk count", "*x\r\n", "-ERR Protocol error: invalid multibulk length"},
		{"bulk without $", "*1\r\nx\r\n", "-ERR Protocol error: expected '$', got 'x'"},
		{"negative bulk", "*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length"},
		{"bulk over proto-max-bulk-len", "*2\r\n$4\r\nPING\r\n$600000000\r\n", "-ERR Protocol error: invalid bulk length"},
		{"unbalanced quotes", "\"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request"},
		{"binary garbage", "\x01\xff\r\n*1\r\n", "-ERR unknown command '\x01\xff', with args beginning with: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := dialRaw(t, srv.Addr())
			rc.send(c.send)
			if got := rc.line(); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if strings.Contains(c.want, "Protocol error") && !rc.Closed(2*time.Second) {
				t.Fatal("connection not closed after a protocol error")
			}
		})
	}

	// A NUL in an inline request hides its newline from Redis (strchr):
	// nothing happens until the inline limit is exceeded.
	nul := dialRaw(t, srv.Addr())
	nul.send("\x00PING\r\n")
	if nul.Closed(200 * time.Millisecond) {
		t.Fatal("closed on a NUL inline request")
	}
	nul.send(strings.Repeat("x", 70000))
	nul.expect("-ERR Protocol error: too big inline request")

	// Unknown command: an error, the connection stays usable.
	rc := dialRaw(t, srv.Addr())
	rc.send("*2\r\n$7\r\nNOSUCH!\r\n$1\r\na\r\nPING\r\n")
	rc.expect("-ERR unknown command 'NOSUCH!', with args beginning with: 'a' ")
	rc.expect("+PONG")

	// A command sent in pieces, the rest arriving later.
	rc.send("*3\r\n$3\r\nSET\r\n$4\r\nhalf")
	time.Sleep(50 * time.Millisecond) // let the server read the first half
	rc.send("\r\n$5\r\nvalue\r\n*2\r\n$3\r")
	time.Sleep(50 * time.Millisecond)
	rc.send("\nGET\r\n$4\r\nhalf\r\n")
	rc.expect("+OK")
	rc.expect("$5")
	rc.expect("value")

	// A big value split over many reads.
	big := strings.Repeat("z", 1<<20)
	req := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n%s\r\n", len(big), big)
	for i := 0; i < len(req); i += 100000 {
		rc.send(req[i:min(i+100000, len(req))])
	}
	rc.expect("+OK")

	// A client that disconnects in the middle of a long pipeline.
	for i := 0; i < 5; i++ {
		nc, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for j := 0; j < 5000; j++ {
			sb.WriteString("*3\r\n$3\r\nSET\r\n$4\r\npipe\r\n$1\r\nx\r\n")
		}
		sb.WriteString("*3\r\n$3\r\nSET\r\n$4\r\npipe\r\n$7\r\npartial") // incomplete
		nc.Write([]byte(sb.String()))
		nc.Close()
	}

	// The server and the other clients keep working.
	other.send("GET survivor\r\n")
	other.expect("$3")
	other.expect("yes")
	healthy(t, srv)
}

func TestMaxClients(t *testing.T) {
	srv := lockkv.RunTWith(t, lockkv.Config{MaxClients: 2})
	a := dialRaw(t, srv.Addr())
	a.send("PING\r\n")
	a.expect("+PONG")
	b := dialRaw(t, srv.Addr())
	b.send("PING\r\n")
	b.expect("+PONG")
	c := dialRaw(t, srv.Addr())
	c.expect("-ERR max number of clients reached")
	if !c.Closed(2 * time.Second) {
		t.Fatal("the client over maxclients was not closed")
	}
	b.Close()
	// Once a slot frees up, a new client is served.
	testutil.Eventually(t, 5*time.Second, func() error {
		if l := dialRaw(t, srv.Addr()).MustDo(t, "PING"); l.Str != "PONG" {
			return fmt.Errorf("no slot after a client left: %v", l)
		}
		return nil
	})
}

func TestIdleTimeout(t *testing.T) {
	srv := lockkv.RunT(t)
	admin := dialRaw(t, srv.Addr())
	admin.send("CONFIG SET timeout 10\r\n")
	admin.expect("+OK")
	idle := dialRaw(t, srv.Addr())
	idle.send("PING\r\n")
	idle.expect("+PONG")
	sub := dialRaw(t, srv.Addr())
	for n := 0; n < 3; {
		srv.Do(func(e *engine.Engine) { n = len(e.Clients()) })
	}
	srv.Clock().FastForward(5 * time.Second)
	admin.send("PING\r\n") // admin stays active
	admin.expect("+PONG")
	if idle.Closed(100 * time.Millisecond) {
		t.Fatal("closed before its timeout")
	}
	srv.Clock().FastForward(6 * time.Second)
	if !idle.Closed(2 * time.Second) {
		t.Fatal("idle client not closed after the timeout")
	}
	if !sub.Closed(2 * time.Second) {
		t.Fatal("never-active client not closed after the timeout")
	}
	admin.send("PING\r\n")
	admin.expect("+PONG")
}

func TestClientPauseWithTestClock(t *testing.T) {
	srv := lockkv.RunT(t)
	srv.Clock().Freeze()
	pauser := dialRaw(t, srv.Addr())
	pauser.send("CLIENT PAUSE 60000 WRITE\r\n")
	pauser.expect("+OK")
	w := dialRaw(t, srv.Addr())
	w.send("SET paused 1\r\nGET paused\r\n")
	r := dialRaw(t, srv.Addr())
	r.send("GET paused\r\n")
	r.expect("$-1") // reads go on
	var blocked int
	srv.Do(func(e *engine.Engine) {
		for _, cl := range e.Clients() {
			if strings.Contains(admin.Info(e, e.NowMs(), "clients"), "blocked_clients:1") {
				blocked = 1
			}
			_ = cl
		}
	})
	if blocked != 1 {
		t.Fatal("the paused writer is not reported as blocked")
	}
	srv.Clock().FastForward(61 * time.Second)
	w.expect("+OK")
	w.expect("$1")
	w.expect("1")
}

func TestShutdownCommand(t *testing.T) {
	srv := lockkv.RunT(t)
	other := dialRaw(t, srv.Addr())
	other.send("PING\r\n")
	other.expect("+PONG")
	c := dialRaw(t, srv.Addr())
	c.send("SHUTDOWN NOSAVE\r\n")
	select {
	case <-srv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN did not stop the server")
	}
	if !c.Closed(time.Second) || !other.Closed(time.Second) {
		t.Fatal("connections still open after SHUTDOWN")
	}
	if _, err := net.DialTimeout("tcp", srv.Addr(), time.Second); err == nil {
		t.Fatal("still listening after SHUTDOWN")
	}
}

func TestClientKillClosesConnection(t *testing.T) {
	srv := lockkv.RunT(t)
	victim := dialRaw(t, srv.Addr())
	victim.send("CLIENT ID\r\n")
	id := strings.TrimPrefix(victim.line(), ":")
	killer := dialRaw(t, srv.Addr())
	killer.send("CLIENT KILL ID " + id + "\r\n")
	killer.expect(":1")
	if !victim.Closed(2 * time.Second) {
		t.Fatal("killed client still connected")
	}
	killer.send("CLIENT KILL ID " + id + "\r\n")
	killer.expect(":0")
}

func TestGoRedisTransactionsAndPubSub(t *testing.T) {
	srv := lockkv.RunT(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	// TxPipeline: MULTI ... EXEC.
	var incr *redis.IntCmd
	if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "counter", 10, 0)
		incr = p.Incr(ctx, "counter")
		return nil
	}); err != nil {
		t.Fatalf("TxPipelined: %v", err)
	}
	if incr.Val() != 11 {
		t.Fatalf("INCR in transaction = %d", incr.Val())
	}
	// WATCH: a concurrent change aborts the transaction.
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		if err := rdb.Set(ctx, "counter", 0, 0).Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, "counter")
			return nil
		})
		return err
	}, "counter")
	if err != redis.TxFailedErr {
		t.Fatalf("WATCH conflict: %v, want TxFailedErr", err)
	}

	// Pub/sub over RESP3 push messages.
	sub := rdb.Subscribe(ctx, "unlock")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatalf("SUBSCRIBE: %v", err)
	}
	ch := sub.Channel()
	if n, err := rdb.Publish(ctx, "unlock", "released").Result(); err != nil || n != 1 {
		t.Fatalf("PUBLISH: %d %v", n, err)
	}
	select {
	case m := <-ch:
		if m.Channel != "unlock" || m.Payload != "released" {
			t.Fatalf("message %+v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
	}
	// Blocking command with a timeout, served by a push from another client.
	go func() {
		time.Sleep(50 * time.Millisecond)
		rdb.RPush(ctx, "queue", "job")
	}()
	if v, err := rdb.BLPop(ctx, 5*time.Second, "queue").Result(); err != nil || v[1] != "job" {
		t.Fatalf("BLPOP: %v %v", v, err)
	}
}

// TestPauseStopsActiveExpiry: as in Redis, keys do not expire actively
// while clients are paused; reads already see them as gone.
func TestPauseStopsActiveExpiry(t *testing.T) {
	srv := lockkv.RunT(t)
	c := dialRaw(t, srv.Addr())
	c.send("SET lease owner PX 100\r\n")
	c.expect("+OK")
	c.send("CLIENT PAUSE 10000 WRITE\r\n")
	c.expect("+OK")
	srv.Clock().FastForward(time.Second)
	c.send("GET lease\r\nDBSIZE\r\n")
	c.expect("$-1")
	c.expect(":1")
	srv.Clock().FastForward(10 * time.Second)
	testutil.Eventually(t, 5*time.Second, func() error {
		if v := c.MustDo(t, "DBSIZE"); v.Str != "0" {
			return fmt.Errorf("the key was not reclaimed after the pause: DBSIZE %v", v)
		}
		return nil
	})
}
