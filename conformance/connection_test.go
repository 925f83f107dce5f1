package conformance

import (
	"strings"
	"testing"
	"time"
)

func TestPing(t *testing.T) {
	p := NewPair(t)
	p.Do("PING")
	p.Do("ping", "hello")
	p.Do("PING", "a", "b")
	p.Do("ECHO", "x")
	p.Do("ECHO")
	p.Do("NOSUCHCOMMAND", "a", "b")
	p.Do("SELECT", "15")
	p.Do("SELECT", "16")
	p.Do("SELECT", "-1")
	p.Do("SELECT", "x")
	p.Do("SELECT", "0")
}

// TestConnectionSELECTRange: SELECT reads its index as
// getIntFromObjectOrReply does, so an index within 64 bits but not 32 has
// that function's range error, and only then is the database checked.
func TestConnectionSELECTRange(t *testing.T) {
	p := NewPair(t)
	for _, id := range []string{"9223372036854775807", "-9223372036854775808", "4294967296",
		"2147483648", "2147483647", "-2147483648", "-2147483649", "9223372036854775808", "1e3"} {
		p.Do("SELECT", id)
	}
	p.Do("MULTI")
	p.Do("SELECT", "9223372036854775807")
	p.Do("EXEC")
	p.Do("EVAL", "return redis.pcall('select', ARGV[1])", "0", "4294967296")
	p.Do("MOVE", "k", "2147483648")
	p.Do("COPY", "k", "k2", "DB", "-2147483649")
}

func TestProtocolErrors(t *testing.T) {
	for _, raw := range []string{
		"*1\r\n$-5\r\n",
		"*1\r\nx\r\n",
		"*x\r\n",
		"*1\r\n$x\r\n",
		"\"unbalanced\r\n",
		"*2\r\n$4\r\nPING\r\n$600000000\r\n",
	} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.Receive()
		p.Closed(2e9)
	}
}

func TestInline(t *testing.T) {
	p := NewPair(t)
	p.SendRaw([]byte("PING\r\n"))
	p.Receive()
	p.SendRaw([]byte("set 'a b' \"c\\x41\\n\"\n"))
	p.Receive()
	p.Do("GET", "a b")
	p.SendRaw([]byte("\r\n*0\r\n*-1\r\nPING\r\n"))
	p.Receive()
}

// fields parses a CLIENT LIST/INFO line into its fields, in order.
func clientFields(line string) (names []string, vals map[string]string) {
	vals = map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		names = append(names, k)
		vals[k] = v
	}
	return names, vals
}

// clientInfoMatches compares two CLIENT INFO lines by field names (in
// order) and by the values that must match between servers.
//
// lockkv's lines end with Redis 7.2's lib-name and lib-ver fields (it
// implements CLIENT SETINFO, which 7.0.15 lacks): they are dropped from the
// lockkv side before comparing, and only there.
func (p *Pair) clientInfoMatches(what string, lv, rv Value, must ...string) {
	p.t.Helper()
	ln, lf := clientFields(strings.TrimPrefix(lv.Str, "txt:"))
	if n := len(ln); n >= 2 && ln[n-2] == "lib-name" && ln[n-1] == "lib-ver" {
		ln = ln[:n-2]
	}
	rn, rf := clientFields(strings.TrimPrefix(rv.Str, "txt:"))
	same := lv.Kind == rv.Kind && strings.Join(ln, " ") == strings.Join(rn, " ")
	for _, k := range must {
		switch k {
		case "age", "idle":
			// Whole seconds of each server's clock, read at slightly
			// different moments: a second boundary may fall between.
			same = same && approxEqual(Value{Kind: ':', Str: lf[k]}, Value{Kind: ':', Str: rf[k]}, 1)
		default:
			same = same && lf[k] == rf[k]
		}
	}
	p.check(what, lv, rv, same)
}

var clientInfoMust = []string{"name", "age", "idle", "flags", "db", "sub", "psub", "ssub", "multi", "events", "cmd", "user", "redir", "resp"}

func TestConnectionHELLO(t *testing.T) {
	p := Connect(t)
	p.DoShape("HELLO")
	p.DoShape("HELLO", "2")
	p.Do("HELLO", "x")
	p.Do("HELLO", "1")
	p.Do("HELLO", "4")
	p.Do("HELLO", "-1")
	p.Do("HELLO", "99999999999999999999")
	p.Do("HELLO", "2", "foo")
	p.Do("HELLO", "2", "AUTH")
	p.Do("HELLO", "2", "AUTH", "a")
	p.Do("HELLO", "2", "SETNAME")
	p.Do("HELLO", "2", "SETNAME", "a b")
	p.Do("HELLO", "2", "AUTH", "nouser", "x")
	p.DoShape("HELLO", "2", "SETNAME", "nm", "AUTH", "default", "anything")
	p.Do("CLIENT", "GETNAME")
	// The reply is the exact map but for the client ID.
	lv, rv := p.DoShape("HELLO", "3")
	for i := 0; i+1 < len(rv.Elems); i += 2 {
		if rv.Elems[i].Str != "id" {
			p.check("hello field "+rv.Elems[i].Str, lv.Elems[i+1], rv.Elems[i+1], Equal(lv.Elems[i+1], rv.Elems[i+1]))
		}
	}
	p.Do("GET", "nosuchkey")
	p.Do("CLIENT", "GETNAME")
	p.DoShape("HELLO", "3", "SETNAME", "")
	p.Do("CLIENT", "GETNAME")
	p.DoShape("HELLO")
	p.DoShape("HELLO", "2")
	p.Do("GET", "nosuchkey")
}

func TestConnectionAUTH(t *testing.T) {
	p := Connect(t)
	p.Do("AUTH", "x")
	p.Do("AUTH", "default", "x")
	p.Do("AUTH", "other", "x")
	p.Do("AUTH")
	p.Do("AUTH", "a", "b", "c")

	admin := Connect(t)
	admin.Do("CONFIG", "SET", "requirepass", "s3cret")
	t.Cleanup(func() {
		a := Connect(t)
		a.Do("AUTH", "s3cret")
		a.Do("CONFIG", "SET", "requirepass", "")
	})
	// Existing connections stay authenticated.
	p.Do("PING")
	q := Connect(t)
	q.Do("PING")
	q.Do("GET", "k")
	q.Do("HELLO", "3")
	q.Do("CLIENT", "ID")
	q.Do("HELLO", "3", "AUTH", "default", "wrong")
	q.Do("AUTH", "wrong")
	q.Do("AUTH", "default", "wrong")
	q.Do("AUTH", "nouser", "s3cret")
	q.Do("PING")
	q.Do("AUTH", "s3cret")
	q.Do("PING")
	q.Do("RESET")
	q.Do("PING")
	q.DoShape("HELLO", "2", "AUTH", "default", "s3cret")
	q.Do("PING")
	q.Do("RESET")
	q.Do("AUTH", "default", "s3cret")
	q.Do("PING")

	// Before AUTH, Redis refuses big requests outright.
	for _, raw := range []string{
		"*11\r\n",
		"*2\r\n$4\r\nECHO\r\n$20000\r\n",
	} {
		u := Connect(t)
		u.SendRaw([]byte(raw))
		u.Receive()
		u.Closed(2e9)
	}
	// AUTH then a big request in the same packet.
	u := Connect(t)
	big := strings.Repeat("x", 20000)
	u.SendRaw([]byte("*2\r\n$4\r\nAUTH\r\n$6\r\ns3cret\r\n*12\r\n$4\r\nECHO\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n"))
	u.Receive()
	u.Receive()
	u.Do("ECHO", big)

	// The same while clients are paused, the big request sent while the
	// AUTH waits: it is parsed once the AUTH ran, with its limits (Redis
	// parses nothing of a blocked client's input until it is unblocked).
	w := Connect(t)
	admin.Do("CLIENT", "PAUSE", "300", "ALL")
	w.SendRaw([]byte("*2\r\n$4\r\nAUTH\r\n$6\r\ns3cret\r\n"))
	time.Sleep(50 * time.Millisecond) // the AUTH waits for the pause
	w.SendRaw([]byte("*12\r\n$4\r\nECHO\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n"))
	w.Receive()
	w.Receive()
	w.Do("PING")
}

func TestConnectionRESET(t *testing.T) {
	p := Connect(t)
	p.Do("SELECT", "3")
	p.Do("CLIENT", "SETNAME", "before")
	p.DoShape("HELLO", "3")
	p.Do("CLIENT", "NO-EVICT", "on")
	p.Do("RESET")
	p.Do("RESET", "x")
	p.Do("CLIENT", "GETNAME")
	p.Do("GET", "nosuchkey") // RESP2 again
	lv, rv := p.DoShape("CLIENT", "INFO")
	p.clientInfoMatches("client info after reset", lv, rv, clientInfoMust...)
	p.Send("CLIENT", "REPLY", "OFF")
	p.Send("PING")
	p.Do("RESET")
	p.Do("PING")
}

func TestConnectionQUIT(t *testing.T) {
	p := Connect(t)
	p.Do("QUIT")
	p.Closed(2e9)
	p = Connect(t)
	p.Do("QUIT", "extra")
	p.Closed(2e9)
}

func TestConnectionROLE(t *testing.T) {
	p := Connect(t)
	p.Do("ROLE")
	p.Do("ROLE", "x")
	p.DoShape("HELLO", "3")
	p.Do("ROLE")
}

func TestConnectionProtoMaxBulkLen(t *testing.T) {
	p := Connect(t)
	p.Do("CONFIG", "SET", "proto-max-bulk-len", "1mb")
	t.Cleanup(func() { Connect(t).Do("CONFIG", "SET", "proto-max-bulk-len", "512mb") })
	q := Connect(t)
	q.SendRaw([]byte("*2\r\n$4\r\nECHO\r\n$1048577\r\n"))
	q.Receive()
	q.Closed(2e9)
	q = Connect(t)
	q.Do("ECHO", strings.Repeat("b", 1048576))
	// A SET within the limit still works; APPEND beyond it is refused.
	q.Do("SET", "bulklimit", strings.Repeat("a", 1048576))
	q.Do("APPEND", "bulklimit", "x")
	q.Do("DEL", "bulklimit")
}

// TestConnectionRequirepassChanges: clearing requirepass lets clients that
// never authenticated in (with the normal request limits); setting it
// again shuts them out.
func TestConnectionRequirepassChanges(t *testing.T) {
	admin := Connect(t)
	admin.Do("CONFIG", "SET", "requirepass", "pw2")
	t.Cleanup(func() {
		a := Connect(t)
		a.Do("AUTH", "pw2")
		a.Do("CONFIG", "SET", "requirepass", "")
	})
	u := Connect(t)
	u.Do("PING")
	admin.Do("CONFIG", "SET", "requirepass", "")
	u.Do("PING")
	u.Do("ECHO", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a")
	u.Do("HELLO", "2")
	admin.Do("CONFIG", "SET", "requirepass", "pw2")
	u.Do("PING")
	u.Do("HELLO", "2")
	u.Do("AUTH", "pw2")
	u.Do("PING")
}
