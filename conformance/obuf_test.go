package conformance

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// client-output-buffer-limit, after Redis's tests/unit/obuf-limits.tcl.
// How much output a socket absorbs before it blocks is the kernel's, and
// differs between the two servers' connections, so each case runs its
// procedure against each server on its own and compares what happened:
// whether and when the slow client was closed, and what CLIENT LIST showed
// of its output buffer on the way.

const defaultOutputBufferLimit = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"

// setOutputBufferLimit sets client-output-buffer-limit on both servers
// and restores Redis's default when the test ends.
func setOutputBufferLimit(t *testing.T, value string) {
	t.Helper()
	Connect(t).Do("CONFIG", "SET", "client-output-buffer-limit", value)
	t.Cleanup(func() { Connect(t).Do("CONFIG", "SET", "client-output-buffer-limit", defaultOutputBufferLimit) })
}

// clientLine returns the CLIENT LIST line of the client named name, "" if
// it is gone.
func clientLine(t *testing.T, c *Conn, name string) string {
	t.Helper()
	v, err := c.Do("CLIENT", "LIST")
	if err != nil {
		t.Fatalf("%s: CLIENT LIST: %v", c.Addr, err)
	}
	for _, line := range strings.Split(v.Str, "\n") {
		if strings.Contains(line, " name="+name+" ") {
			return line
		}
	}
	return ""
}

// clientField returns a numeric CLIENT LIST field of line.
func clientField(line, field string) int64 {
	_, vals := clientFields(line)
	n, _ := strconv.ParseInt(vals[field], 10, 64)
	return n
}

// subscribeSlow subscribes a slow reader named name to channel foo.
func subscribeSlow(t *testing.T, addr, name string) *Conn {
	t.Helper()
	sub := testutil.DialSlowReader(t, addr)
	for _, cmd := range [][]string{{"CLIENT", "SETNAME", name}, {"SUBSCRIBE", "foo"}} {
		if _, err := sub.Do(cmd...); err != nil {
			t.Fatalf("%s: %q: %v", addr, cmd, err)
		}
	}
	return sub
}

// outcome is what a procedure observed on one server.
type outcome map[string]string

func (p *Pair) outcomesMatch(what string, l, r outcome) {
	p.t.Helper()
	lv := Value{Kind: '+', Str: fmt.Sprint(map[string]string(l))}
	rv := Value{Kind: '+', Str: fmt.Sprint(map[string]string(r))}
	p.check(what, lv, rv, lv.Str == rv.Str)
}

// TestOutputBufferPubSubHardLimit is "Client output buffer hard limit is
// enforced": a subscriber that does not read is closed once its output
// buffer (CLIENT LIST omem) reaches the hard limit; until then it stays.
func TestOutputBufferPubSubHardLimit(t *testing.T) {
	p := Connect(t)
	setOutputBufferLimit(t, "pubsub 100000 0 0")
	msg := strings.Repeat("x", 1000)
	run := func(addr string) outcome {
		sub := subscribeSlow(t, addr, "hardsub")
		pub := testutil.MustDial(t, addr)
		var last int64
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			burst := 1
			if last == 0 {
				burst = 50 // the kernel's buffers fill first
			}
			for i := 0; i < burst; i++ {
				pub.MustDo(t, "PUBLISH", "foo", msg)
			}
			line := clientLine(t, pub, "hardsub")
			if line == "" {
				return outcome{
					"closed": "true",
					// Redis counts its reply list in blocks (20504
					// bytes here), lockkv in bytes: both were closed
					// before omem reached the limit, not long before.
					"last omem in [70000, 100000)": strconv.FormatBool(last >= 70000 && last < 100000),
					"connection closed":            strconv.FormatBool(drainedToEOF(sub)),
				}
			}
			last = clientField(line, "omem")
		}
		return outcome{"closed": "false"}
	}
	p.outcomesMatch("pubsub hard limit", run(p.L.Addr), run(p.R.Addr))
}

// drainedToEOF reads c until the server closes it.
func drainedToEOF(c *Conn) bool {
	buf := make([]byte, 64*1024)
	c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, err := c.Reader().Read(buf); err != nil {
			ne, ok := err.(net.Error)
			return !(ok && ne.Timeout())
		}
	}
}

// TestOutputBufferSoftLimit is "Client output buffer soft limit is not
// enforced too early and is enforced when no traffic": over the soft
// limit a subscriber stays connected for the soft seconds, then is closed
// by the server's periodic check although nothing more is published.
func TestOutputBufferSoftLimit(t *testing.T) {
	p := Connect(t)
	setOutputBufferLimit(t, "pubsub 0 100000 1")
	msg := strings.Repeat("x", 1000)
	run := func(addr string) outcome {
		sub := subscribeSlow(t, addr, "softsub")
		pub := testutil.MustDial(t, addr)
		var over time.Time // when omem was last seen under the limit, once over
		underAt := time.Now()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			pub.MustDo(t, "PUBLISH", "foo", msg)
			line := clientLine(t, pub, "softsub")
			if line == "" {
				return outcome{"closed while publishing": "true"}
			}
			if clientField(line, "omem") <= 100000 {
				underAt = time.Now()
				over = time.Time{}
				continue
			}
			if over.IsZero() {
				over = underAt
			}
			if time.Since(over) >= time.Second {
				break // over the limit past its seconds, and still there
			}
		}
		if over.IsZero() {
			return outcome{"went over": "false"}
		}
		gone := testutil.Poll(10*time.Second, func() error {
			if line := clientLine(t, pub, "softsub"); line != "" {
				return errors.New(line)
			}
			return nil
		}) == nil
		return outcome{"stayed over for the soft seconds": "true", "closed without traffic": strconv.FormatBool(gone),
			"connection closed": strconv.FormatBool(gone && drainedToEOF(sub))}
	}
	p.outcomesMatch("pubsub soft limit", run(p.L.Addr), run(p.R.Addr))
}

// TestOutputBufferNormalSingleReply is "No response for single command if
// client output buffer hard limit is enforced": a reply over the normal
// class's hard limit closes the client before any of it is sent.
func TestOutputBufferNormalSingleReply(t *testing.T) {
	p := NewPair(t)
	item := strings.Repeat("x", 1000)
	for i := 0; i < 150; i++ {
		p.Do("LPUSH", "mylist", item)
	}
	setOutputBufferLimit(t, "normal 100000 0 0")
	q := Connect(t)
	q.Do("CLIENT", "SETNAME", "mybiglist")
	q.Send("LRANGE", "mylist", "0", "-1")
	q.Closed(5 * time.Second) // closed, and nothing received
	for _, c := range []*Conn{p.L, p.R} {
		if line := clientLine(t, c, "mybiglist"); line != "" {
			t.Errorf("%s: the client is still there: %s", c.Addr, line)
		}
	}
	// A reply under the limit, in a pipeline of small ones, is sent.
	q = Connect(t)
	q.Send("LRANGE", "mylist", "0", "50")
	q.Send("PING")
	q.Receive()
	q.Receive()
}

// TestKilledClientOutputDropped: CLIENT KILL frees the victim at once, as
// Redis's freeClient does: output it has not read is dropped, not written
// first, so a client that never reads cannot keep its memory and socket.
func TestKilledClientOutputDropped(t *testing.T) {
	slowReaderFreed(t, "killed slow reader", func(k *Conn, id string) string {
		v := k.MustDo(t, "CLIENT", "KILL", "ID", id)
		return string(v.Kind) + v.Str
	})
}

// TestTimedOutClientOutputDropped: so does the idle timeout
// (clientsCronHandleTimeout's freeClient).
func TestTimedOutClientOutputDropped(t *testing.T) {
	t.Cleanup(func() { Connect(t).Do("CONFIG", "SET", "timeout", "0") })
	slowReaderFreed(t, "timed-out slow reader", func(k *Conn, id string) string {
		v := k.MustDo(t, "CONFIG", "SET", "timeout", "1")
		deadline := time.Now().Add(10 * time.Second)
		for clientLine(t, k, "freedslow") != "" && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		k.MustDo(t, "CONFIG", "SET", "timeout", "0")
		return string(v.Kind) + v.Str
	})
}

// slowReaderFreed has a client that does not read ask for 32 MB, waits
// until at least 8 MB wait in its output buffer, has free end it, then
// reads what reaches it, on each server, and compares what happened.
func slowReaderFreed(t *testing.T, what string, free func(k *Conn, id string) string) {
	p := Connect(t)
	const gets, size = 32, 1 << 20
	run := func(addr string) outcome {
		k := testutil.MustDial(t, addr)
		k.MustDo(t, "SET", "freedobuf", strings.Repeat("x", size))
		slow := testutil.DialSlowReader(t, addr)
		if _, err := slow.Do("CLIENT", "SETNAME", "freedslow"); err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		id, err := slow.Do("CLIENT", "ID")
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		// One write, so that both servers read the whole pipeline at
		// once: lockkv reads a client's next pipeline only once the
		// last one's output is written (its reader writes it).
		var pipeline []byte
		for i := 0; i < gets; i++ {
			pipeline = append(pipeline, testutil.Command("GET", "freedobuf")...)
		}
		if err := slow.SendRaw(pipeline); err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		var omem int64
		deadline := time.Now().Add(10 * time.Second)
		for omem < 8<<20 && time.Now().Before(deadline) {
			omem = clientField(clientLine(t, k, "freedslow"), "omem")
			time.Sleep(10 * time.Millisecond)
		}
		freed := free(k, id.Str)
		got := 0
		buf := make([]byte, 64*1024)
		slow.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
		var rerr error
		for rerr == nil {
			var n int
			n, rerr = slow.Reader().Read(buf)
			got += n
		}
		ne, timedOut := rerr.(net.Error)
		return outcome{
			"omem over 8 MB before": strconv.FormatBool(omem >= 8<<20),
			"free":                  freed,
			"closed":                strconv.FormatBool(!(timedOut && ne.Timeout())),
			// What the kernel's buffers held is read; the output
			// buffer (omem, at least 8 MB) is not.
			"output cut":            strconv.FormatBool(int64(got) < omem),
			"gone from CLIENT LIST": strconv.FormatBool(clientLine(t, k, "freedslow") == ""),
		}
	}
	l, r := run(p.L.Addr), run(p.R.Addr)
	p.outcomesMatch(what, l, r)
	if l["output cut"] != "true" || l["closed"] != "true" || l["omem over 8 MB before"] != "true" {
		t.Errorf("lockkv: %v", l)
	}
}
