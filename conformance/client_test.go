package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

func TestClientBasics(t *testing.T) {
	p := Connect(t)
	p.DoShape("CLIENT", "ID")
	p.Do("CLIENT", "ID", "x")
	p.Do("CLIENT")
	p.Do("CLIENT", "FOO")
	p.Do("CLIENT", "HELP")
	p.Do("CLIENT", "HELP", "x")
	p.Do("CLIENT", "GETNAME")
	p.Do("CLIENT", "SETNAME", "a b")
	p.Do("CLIENT", "SETNAME", "a\nb")
	p.Do("CLIENT", "SETNAME", "\x7f")
	p.Do("CLIENT", "SETNAME", "lock-client-1")
	p.Do("CLIENT", "GETNAME")
	p.Do("CLIENT", "SETNAME", "")
	p.Do("CLIENT", "GETNAME")
	p.Do("CLIENT", "SETNAME")
	// CLIENT SETINFO and NO-TOUCH came in Redis 7.2: lockkv implements
	// them, 7.0.15 does not (engine/redis72_test.go tests them).
	p.Do("CLIENT", "NO-EVICT", "x")
	p.Do("CLIENT", "NO-EVICT", "on")
	p.Do("CLIENT", "NO-EVICT", "OFF")
	p.Do("CLIENT", "REPLY", "x")
	p.Do("CLIENT", "UNPAUSE")
	p.Do("CLIENT", "UNBLOCK", "x")
	p.Do("CLIENT", "UNBLOCK", "999999")
	p.Do("CLIENT", "UNBLOCK", "999999", "foo")
	p.Do("CLIENT", "UNBLOCK", "999999", "error")
	p.Do("CLIENT", "UNBLOCK", "999999", "timeout", "x")
	p.Do("CLIENT", "PAUSE", "x")
	p.Do("CLIENT", "PAUSE", "-1")
	p.Do("CLIENT", "PAUSE", "1.5")
	p.Do("CLIENT", "PAUSE", "10", "foo")
	p.Do("CLIENT", "PAUSE", "0")
	p.Do("CLIENT", "PAUSE", "0", "write")
	p.Do("CLIENT", "UNPAUSE", "x")
	p.Do("PING")
}

func TestClientINFOandLIST(t *testing.T) {
	p := Connect(t)
	p.Do("CLIENT", "SETNAME", "lister")
	p.Do("SELECT", "2")
	lv, rv := p.DoShape("CLIENT", "INFO")
	p.clientInfoMatches("client info", lv, rv, clientInfoMust...)
	p.Do("CLIENT", "NO-EVICT", "on")
	lv, rv = p.DoShape("CLIENT", "INFO")
	p.clientInfoMatches("client info no-evict", lv, rv, clientInfoMust...)
	p.Do("CLIENT", "NO-EVICT", "off")

	lid, rid := p.DoShape("CLIENT", "ID")
	lv, _ = p.L.Do("CLIENT", "LIST", "ID", lid.Str, "999999")
	rv, _ = p.R.Do("CLIENT", "LIST", "ID", rid.Str, "999999")
	p.clientInfoMatches("client list id", lv, rv, clientInfoMust...)

	p.Do("CLIENT", "LIST", "TYPE", "x")
	p.Do("CLIENT", "LIST", "TYPE", "master")
	p.Do("CLIENT", "LIST", "TYPE", "replica")
	p.Do("CLIENT", "LIST", "TYPE", "slave")
	p.Do("CLIENT", "LIST", "ID", "x")
	p.Do("CLIENT", "LIST", "ID", "0")
	p.Do("CLIENT", "LIST", "ID", "-1")
	p.Do("CLIENT", "LIST", "ID")
	p.Do("CLIENT", "LIST", "foo")
	p.Do("CLIENT", "LIST", "TYPE", "normal", "x")
	p.Do("CLIENT", "LIST", "ID", "999999", "999998")

	// TYPE normal lists this client among others.
	for _, c := range []*Conn{p.L, p.R} {
		v, err := c.Do("CLIENT", "LIST", "TYPE", "normal")
		if err != nil || !strings.Contains(v.Str, "name=lister ") {
			t.Errorf("%s: CLIENT LIST TYPE normal = %v, %v", c.Addr, v, err)
		}
	}

	p.DoShape("HELLO", "3")
	lv, rv = p.DoShape("CLIENT", "INFO")
	p.clientInfoMatches("client info resp3", lv, rv, clientInfoMust...)
}

func TestClientKILL(t *testing.T) {
	p := Connect(t)
	p.Do("CLIENT", "KILL", "1.2.3.4:5")
	p.Do("CLIENT", "KILL", "x")
	p.Do("CLIENT", "KILL", "ID", "x")
	p.Do("CLIENT", "KILL", "ID", "-1")
	p.Do("CLIENT", "KILL", "ID", "0")
	p.Do("CLIENT", "KILL", "ID", "99999999")
	p.Do("CLIENT", "KILL", "TYPE", "foo")
	p.Do("CLIENT", "KILL", "TYPE", "master")
	p.Do("CLIENT", "KILL", "TYPE", "replica")
	p.Do("CLIENT", "KILL", "TYPE", "pubsub")
	p.Do("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "maybe")
	p.Do("CLIENT", "KILL", "USER", "nouser")
	p.Do("CLIENT", "KILL", "ADDR", "1.2.3.4:5")
	p.Do("CLIENT", "KILL", "LADDR", "1.2.3.4:5")
	p.Do("CLIENT", "KILL", "ID", "1", "ID")
	p.Do("CLIENT", "KILL", "MAXAGE", "5")
	p.Do("CLIENT", "KILL", "a", "b", "c")
	p.Do("CLIENT", "KILL", "SKIPME", "yes", "ID", "99999999")

	// Kill another connection by ID, then by address (old form).
	for _, form := range []string{"id", "addr", "oldaddr", "user"} {
		victim := Connect(t)
		victim.Do("CLIENT", "SETNAME", "victim")
		for _, side := range []struct{ killer, victim *Conn }{{p.L, victim.L}, {p.R, victim.R}} {
			id, _ := side.victim.Do("CLIENT", "ID")
			info, _ := side.victim.Do("CLIENT", "INFO")
			_, f := clientFields(strings.TrimPrefix(info.Str, "txt:"))
			var v Value
			switch form {
			case "id":
				v, _ = side.killer.Do("CLIENT", "KILL", "ID", id.Str)
			case "addr":
				v, _ = side.killer.Do("CLIENT", "KILL", "ADDR", f["addr"], "ID", id.Str)
			case "oldaddr":
				v, _ = side.killer.Do("CLIENT", "KILL", f["addr"])
			case "user":
				v, _ = side.killer.Do("CLIENT", "KILL", "USER", "default", "ID", id.Str)
			}
			want := ":1"
			if form == "oldaddr" {
				want = "+OK"
			}
			if string(v.Kind)+v.Str != want {
				t.Errorf("%s kill %s: %v", side.killer.Addr, form, v)
			}
		}
		victim.Closed(2e9)
	}

	// A client may kill itself: the reply arrives, then the connection closes.
	self := Connect(t)
	lid, rid := clientIDs(t, self)
	lv, _ := self.L.Do("CLIENT", "KILL", "ID", lid, "SKIPME", "no")
	rv, _ := self.R.Do("CLIENT", "KILL", "ID", rid, "SKIPME", "no")
	self.check("kill self", lv, rv, Equal(lv, rv))
	self.Closed(2e9)
}

func TestClientREPLY(t *testing.T) {
	p := Connect(t)
	p.Do("CLIENT", "REPLY", "ON")
	p.Send("CLIENT", "REPLY", "OFF")
	p.Send("SET", "replykey", "1")
	p.Send("GET", "replykey")
	p.Send("NOSUCHCMD")
	p.Do("CLIENT", "REPLY", "ON")
	p.Do("GET", "replykey")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("GET", "replykey")
	p.Do("ECHO", "after-skip")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("PING")
	p.Do("ECHO", "after-double-skip")
	p.Send("CLIENT", "REPLY", "OFF")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("PING")
	p.Do("CLIENT", "REPLY", "ON")
	p.Do("SET", "replykey", "x")
	// A refused command (wrong arity, unknown, queued in MULTI) is the
	// one SKIP skips, as resetClient runs after it too.
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("GET")
	p.Do("ECHO", "after-refused")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("NOSUCHCMD")
	p.Do("ECHO", "after-unknown")
	p.Do("MULTI")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("ECHO", "queued")
	p.Do("ECHO", "queued-after-skip")
	p.Do("EXEC")
	p.Send("RESET")
	p.Receive()
	p.Do("ECHO", "after-reset")
	p.Send("CLIENT", "REPLY", "SKIP")
	p.Send("RESET")
	p.Do("ECHO", "after-skipped-reset")
	p.Send("CLIENT", "REPLY", "OFF")
	p.Do("RESET")
	p.Do("ECHO", "after-reset-of-off")
}

// TestClientPAUSE: paused commands wait and then run, in order.
// TestClientPAUSE checks what CLIENT PAUSE holds and for how long. A
// paused command's reply can come no earlier than the pause's end, which is
// at least the pause's length after the moment the test sent CLIENT PAUSE:
// those lower bounds hold however slow the machine is. Checks that
// something is answered at once use pauses far longer than any delay.
func TestClientPAUSE(t *testing.T) {
	p := Connect(t)
	q := Connect(t)
	t.Cleanup(func() { Connect(t).Do("CLIENT", "UNPAUSE") })
	p.Do("SET", "pausekey", "1")
	start := time.Now()
	p.Do("CLIENT", "PAUSE", "300", "WRITE")
	// Reads go on; a write waits, and so does the rest of its pipeline.
	q.Do("GET", "pausekey")
	q.Send("SET", "pausekey", "2")
	q.Send("GET", "pausekey")
	q.Receive()
	q.Receive()
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("paused write ran after %v", d)
	}
	// Under ALL every command waits, the pausing client's too, but wrong
	// arity is refused first. A shorter pause does not shorten it; the
	// paused PING answers when it ends.
	start = time.Now()
	p.Do("CLIENT", "PAUSE", "800", "ALL")
	q.Do("SET", "x")
	q.Send("PING")
	p.Send("CLIENT", "PAUSE", "10", "WRITE")
	q.Receive()
	p.Receive()
	if d := time.Since(start); d < 800*time.Millisecond {
		t.Errorf("PAUSE ALL lifted early: %v", d)
	}
	// Wrong arity is answered at once, not when the pause ends; UNPAUSE
	// releases the waiting clients at once.
	start = time.Now()
	p.Do("CLIENT", "PAUSE", "20000", "WRITE")
	q.Do("SET", "x")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("wrong arity waited for the pause: %v", d)
	}
	q.Send("SET", "pausekey", "3")
	q.NoReply(100 * time.Millisecond)
	p.Do("CLIENT", "UNPAUSE")
	q.Receive()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("UNPAUSE did not release the write: %v", d)
	}
	p.Do("GET", "pausekey")
}

// TestClientPAUSEWriteQueuedSubcommand: under CLIENT PAUSE WRITE an EXEC
// waits when what it queued may write, a write subcommand (FUNCTION
// DELETE) included, as Redis judges by the queued commands' flags.
func TestClientPAUSEWriteQueuedSubcommand(t *testing.T) {
	p := Connect(t)
	q := Connect(t)
	t.Cleanup(func() { Connect(t).Do("CLIENT", "UNPAUSE") })
	q.Do("MULTI")
	q.Do("FUNCTION", "DELETE", "nosuchlib")
	p.Do("CLIENT", "PAUSE", "20000", "WRITE")
	q.Send("EXEC")
	q.NoReply(100 * time.Millisecond)
	p.Do("CLIENT", "UNPAUSE")
	q.Receive()
}

func TestClientFlags(t *testing.T) {
	p := Connect(t)
	p.DoShape("HELLO", "3")
	info := func(what string) {
		t.Helper()
		lv, rv := p.DoShape("CLIENT", "INFO")
		p.clientInfoMatches(what, lv, rv, clientInfoMust...)
	}
	info("plain")
	p.Do("SUBSCRIBE", "flagchan")
	info("subscribed")
	p.Do("PSUBSCRIBE", "flag*")
	info("psubscribed")
	p.Do("UNSUBSCRIBE")
	p.Do("PUNSUBSCRIBE")
	info("unsubscribed")
	p.Do("CLIENT", "TRACKING", "on")
	info("tracking")
	p.Do("CLIENT", "TRACKING", "off")
	p.Do("CLIENT", "TRACKING", "on", "BCAST")
	info("bcast")
	p.Do("CLIENT", "TRACKING", "off")
	p.Do("WATCH", "flagkey")
	p.Do("SET", "flagkey", "1")
	info("dirty cas")
	p.Do("UNWATCH")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("DISCARD")
	info("after multi")
	p.Do("CLIENT", "NO-EVICT", "on")
	info("no-evict")
	p.Do("RESET")
	lv, rv := p.DoShape("CLIENT", "INFO")
	p.clientInfoMatches("after reset", lv, rv, clientInfoMust...)
}

func TestClientUNBLOCK(t *testing.T) {
	p := Connect(t)
	blocked := Connect(t)
	p.Do("DEL", "unblock-list")
	// WAIT blocks like BLPOP; unblocked as a timeout it answers the
	// replicas it has (none).
	for _, tc := range []struct{ cmd, reason []string }{
		{[]string{"BLPOP", "unblock-list", "0"}, nil},
		{[]string{"BLPOP", "unblock-list", "0"}, []string{"TIMEOUT"}},
		{[]string{"BLPOP", "unblock-list", "0"}, []string{"ERROR"}},
		{[]string{"WAIT", "1", "0"}, nil},
		{[]string{"WAIT", "1", "0"}, []string{"TIMEOUT"}},
		{[]string{"WAIT", "1", "0"}, []string{"ERROR"}},
	} {
		lid, rid := clientIDs(t, blocked)
		blocked.Send(tc.cmd...)
		blocked.NoReply(50 * time.Millisecond)
		// Wait until both servers see the client blocked.
		for _, side := range []struct {
			c  *Conn
			id string
		}{{p.L, lid}, {p.R, rid}} {
			testutil.Eventually(t, 2*time.Second, func() error {
				if v := side.c.MustDo(t, "CLIENT", "LIST", "ID", side.id); !strings.Contains(v.Str, "flags=b") {
					return fmt.Errorf("%s: not blocked: %v", side.c.Addr, v)
				}
				return nil
			})
		}
		args := func(id string) []string {
			return append([]string{"CLIENT", "UNBLOCK", id}, tc.reason...)
		}
		lv, _ := p.L.Do(args(lid)...)
		rv, _ := p.R.Do(args(rid)...)
		p.check(fmt.Sprintf("CLIENT UNBLOCK %v %v", tc.cmd, tc.reason), lv, rv, Equal(lv, rv))
		blocked.Receive()
		lv, _ = p.L.Do(args(lid)...)
		rv, _ = p.R.Do(args(rid)...)
		p.check("CLIENT UNBLOCK again", lv, rv, Equal(lv, rv))
	}
	blocked.Do("PING")
}

func TestClientPAUSEMulti(t *testing.T) {
	p := Connect(t)
	q := Connect(t)
	q.Do("MULTI")
	q.Do("SET", "pause-multi", "1")
	// EXEC of a transaction with writes waits for the pause: its reply
	// comes no earlier than the pause's length after the PAUSE was sent.
	start := time.Now()
	p.Do("CLIENT", "PAUSE", "300", "WRITE")
	q.Send("EXEC")
	q.Receive()
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("EXEC with writes ran after %v under PAUSE WRITE", d)
	}
	// A read-only transaction runs at once.
	t.Cleanup(func() { Connect(t).Do("CLIENT", "UNPAUSE") })
	p.Do("CLIENT", "PAUSE", "20000", "WRITE")
	q.Do("MULTI")
	q.Do("GET", "pause-multi")
	q.Do("EXEC")
	// Queueing a write inside MULTI waits too.
	q.Do("MULTI")
	q.Send("SET", "pause-multi", "2")
	q.NoReply(100 * time.Millisecond)
	p.Do("CLIENT", "UNPAUSE")
	q.Receive()
	q.Do("EXEC")
	// WAIT inside MULTI answers at once.
	q.Do("MULTI")
	q.Do("WAIT", "1", "0")
	q.Do("EXEC")
}

// TestClientLISTLastCommand: cmd= shows the last command that exists,
// even refused or queued; NULL after an unknown one.
func TestClientLISTLastCommand(t *testing.T) {
	p := Connect(t)
	watched := Connect(t)
	watched.Do("CLIENT", "SETNAME", "lastcmd")
	lid, rid := clientIDs(t, watched)
	for _, cmd := range [][]string{{"NOSUCH"}, {"GET"}, {"MULTI"}, {"SET", "a", "1"}, {"EXEC"},
		{"CONFIG", "GET", "hz"}, {"CLIENT", "NOSUCH"}, {"CONFIG", "GET"}} {
		watched.Do(cmd...)
		lv, _ := p.L.Do("CLIENT", "LIST", "ID", lid)
		rv, _ := p.R.Do("CLIENT", "LIST", "ID", rid)
		p.clientInfoMatches(strings.Join(cmd, " "), lv, rv, clientInfoMust...)
	}
}

// TestClientPAUSEMayReplicate: under PAUSE WRITE, commands that may
// replicate (EVAL, EVALSHA, FCALL, PUBLISH) wait too; their _RO variants
// and reads do not.
func TestClientPAUSEMayReplicate(t *testing.T) {
	p := Connect(t)
	q := Connect(t)
	for _, cmd := range [][]string{
		{"EVAL", "return 1", "0"},
		{"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
		{"FCALL", "nosuchfunction", "0"},
		{"PUBLISH", "pausechan", "x"},
	} {
		q.Do("SCRIPT", "LOAD", "return 1")
		p.Do("CLIENT", "PAUSE", "5000", "WRITE")
		q.Do("EVAL_RO", "return 1", "0")
		q.Do("FCALL_RO", "nosuchfunction", "0")
		q.Send(cmd...)
		q.NoReply(100 * time.Millisecond)
		p.Do("CLIENT", "UNPAUSE")
		q.Receive()
	}
}
