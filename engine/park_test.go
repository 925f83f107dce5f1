package engine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/config"
)

// mustPanic runs fn and fails unless it panics.
func mustPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	fn()
}

// TestParkTransitions: a client is parked for one reason at a time; park
// on a parked client and unpark from a kind it is not in panic and leave
// the kind as it was.
func TestParkTransitions(t *testing.T) {
	te := newTestEngine(t)
	cl, _ := te.client()
	for k := parkBlocked; int(k) < len(parkNames); k++ {
		te.e.park(cl, k)
		if cl.park != k {
			t.Fatalf("park %s: kind %s", k, cl.park)
		}
		mustPanic(t, "park over "+k.String(), func() { te.e.park(cl, parkPaused) })
		other := parkBlocked
		if k == parkBlocked {
			other = parkWait
		}
		mustPanic(t, "unpark "+other.String()+" from "+k.String(), func() { te.e.unpark(cl, other) })
		if cl.park != k {
			t.Fatalf("a refused transition changed %s to %s", k, cl.park)
		}
		te.e.unpark(cl, k)
		if cl.park != parkNone {
			t.Fatalf("unpark %s left %s", k, cl.park)
		}
	}
	mustPanic(t, "unpark a client not parked", func() { te.e.unpark(cl, parkNone) })
	mustPanic(t, "park as none", func() { te.e.park(cl, parkNone) })
}

// TestParkKindSets: held is exactly what the old blocked||postponed||waiting
// flags held (RAFT.NODE's deferred reply set waiting), so Conn.Blocked,
// CLIENT LIST's b flag and INFO blocked_clients count the same clients;
// reruns is exactly CLIENT PAUSE and the two replication waits that run
// the command again.
func TestParkKindSets(t *testing.T) {
	held := map[parkKind]bool{parkBlocked: true, parkPaused: true, parkWait: true, parkReply: true}
	reruns := map[parkKind]bool{parkPaused: true, parkReadRound: true, parkBehindExec: true}
	for k := parkNone; int(k) < len(parkNames); k++ {
		if k.held() != held[k] {
			t.Errorf("%s.held() = %v", k, k.held())
		}
		if k.reruns() != reruns[k] {
			t.Errorf("%s.reruns() = %v", k, k.reruns())
		}
	}
}

// TestParkOverlapIsInternalError: a command that parks its client twice
// (here: blocks, then blocks again) is a bug; it is answered with the
// internal error, the client is left unparked and out of every wait queue,
// and it goes on.
func TestParkOverlapIsInternalError(t *testing.T) {
	te := newTestEngine(t)
	log := captureLog(te.e)
	serve := func(c *Ctx, key []byte) bool {
		c.W.BulkString("served")
		return false
	}
	breakCommand(t, "blpop", func(c *Ctx, args [][]byte) {
		c.Block(BlockList, args[1:2], 0, serve)
		c.Block(BlockList, args[2:3], 0, serve)
	})
	cl, conn := te.client()
	other, oconn := te.client()
	te.expect(cl, conn, "-"+ErrInternal("blpop")+"\r\n", "BLPOP", "q1", "q2", "0")
	if cl.park != parkNone || te.e.BlockedClients() != 0 || te.e.BlockingKeys() != 0 {
		t.Fatalf("park %s, %d blocked clients, %d keys", cl.park, te.e.BlockedClients(), te.e.BlockingKeys())
	}
	if !strings.Contains(log.String(), "parked blocked while blocked") {
		t.Errorf("the overlap was not logged:\n%s", log)
	}
	te.expect(other, oconn, ":1\r\n", "RPUSH", "q1", "x")
	te.expect(cl, conn, "+PONG\r\n", "PING")
}

// TestClientTimeoutParked: timeout closes no parked client, whatever the
// kind, even with nothing queued behind its command (a read waiting for its
// leadership round was missed before the kinds).
func TestClientTimeoutParked(t *testing.T) {
	te := newTestEngine(t)
	te.e.Config.Timeout = 1
	now := te.e.NowMs() + 5000
	for k := parkBlocked; int(k) < len(parkNames); k++ {
		cl, _ := te.client()
		te.e.park(cl, k)
		if len(cl.queue) != 0 {
			t.Fatal("queue not empty")
		}
		if te.e.clientTimedOut(cl, now) {
			t.Errorf("a client parked %s was closed by timeout", k)
		}
		te.e.unpark(cl, k)
		if !te.e.clientTimedOut(cl, now) {
			t.Errorf("an idle client (was %s) not closed", k)
		}
	}
}

// fakeAdmin is a fakeCluster that takes RAFT.NODE ADD and keeps its done.
type fakeAdmin struct {
	*fakeCluster
	done func(error)
}

func (f *fakeAdmin) AddNode(id, raftAddr, clientAddr string, voter bool, done func(error)) {
	f.done = done
}
func (f *fakeAdmin) Ack(id string, match, applied uint64) error { return nil }
func (f *fakeAdmin) RemoveNode(id string, done func(error))     { f.done = done }

// TestUnblockRaftNodeReply: a client waiting for RAFT.NODE ADD's deferred
// reply counts as blocked (CLIENT LIST b, INFO blocked_clients), but
// CLIENT UNBLOCK answers 0 for it (it is in no blocking command, nor in
// WAIT) and leaves it waiting; the reply comes once, and the pipeline
// behind it runs.
func TestUnblockRaftNodeReply(t *testing.T) {
	te, _ := replicatedEngine(t)
	adm := &fakeAdmin{fakeCluster: newFakeCluster("n1")}
	te.e.cluster = &clusterView{Cluster: adm, e: te.e}
	te.e.admin = adm
	cl, conn := te.client()
	admin, aconn := te.client()
	te.e.ProcessBatch(cl, [][][]byte{argv("RAFT.NODE", "ADD", "n4", "10.0.0.4:7004", "10.0.0.4:6004"), argv("PING")}, func() {})
	te.e.FlushOutputs()
	if adm.done == nil || cl.park != parkReply || len(conn.out) != 0 {
		t.Fatalf("RAFT.NODE ADD: done %v, park %s, output %q", adm.done != nil, cl.park, conn.out)
	}
	id := strconv.FormatInt(cl.ID, 10)
	if out := te.do(admin, aconn, "CLIENT", "LIST", "ID", id); !strings.Contains(out, " flags=b ") {
		t.Errorf("CLIENT LIST: %q", out)
	}
	if out := te.do(admin, aconn, "INFO", "clients"); !strings.Contains(out, "blocked_clients:1\r\n") {
		t.Errorf("INFO clients: %q", out)
	}
	te.expect(admin, aconn, ":0\r\n", "CLIENT", "UNBLOCK", id)
	te.expect(admin, aconn, ":0\r\n", "CLIENT", "UNBLOCK", id, "ERROR")
	if cl.park != parkReply || len(conn.out) != 0 {
		t.Fatalf("after CLIENT UNBLOCK: park %s, output %q", cl.park, conn.out)
	}
	adm.done(nil)
	te.e.FlushOutputs()
	if got := string(conn.out); got != "+OK\r\n+PONG\r\n" {
		t.Fatalf("got %q", got)
	}
	if cl.park != parkNone {
		t.Fatalf("park %s after the reply", cl.park)
	}
	if out := te.do(admin, aconn, "INFO", "clients"); !strings.Contains(out, "blocked_clients:0\r\n") {
		t.Errorf("INFO clients after the reply: %q", out)
	}
}

// TestHeldClientsCounted: blocked, paused and WAITing clients show the b
// flag and count in blocked_clients; a client whose write is in flight
// does neither (it waits for its own op, not for something that may take
// any time).
func TestHeldClientsCounted(t *testing.T) {
	te, r := replicatedEngine(t)
	admin, aconn := te.client()
	blk, bconn := te.client()
	te.do(blk, bconn, "BLPOP", "q", "0")
	te.commit(r, 1) // BLPOP is an op; applied here, it blocks
	wt, wconn := te.client()
	te.do(wt, wconn, "WAIT", "1", "0")
	wr, wrconn := te.client()
	te.do(wr, wrconn, "SET", "k", "v")
	if len(r.ops) != 1 || wr.park != parkProposed {
		t.Fatalf("%d ops, park %s", len(r.ops), wr.park)
	}
	te.expect(admin, aconn, "+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	ps, pconn := te.client()
	te.do(ps, pconn, "SET", "k2", "v")
	want := map[*Client]parkKind{blk: parkBlocked, wt: parkWait, wr: parkProposed, ps: parkPaused}
	for cl, k := range want {
		if cl.park != k {
			t.Fatalf("client %d parked %s, want %s", cl.ID, cl.park, k)
		}
		out := te.do(admin, aconn, "CLIENT", "LIST", "ID", strconv.FormatInt(cl.ID, 10))
		if got := strings.Contains(out, " flags=b "); got != k.held() {
			t.Errorf("%s: CLIENT LIST %q", k, out)
		}
	}
	if out := te.do(admin, aconn, "INFO", "clients"); !strings.Contains(out, "blocked_clients:3\r\n") {
		t.Errorf("INFO clients: %q", out)
	}
}

// TestUnblockWhileRetrying: a blocked client whose command is proposed
// again (a key it waits on got an element) and that is answered another
// way before the op applies (CLIENT UNBLOCK, losing the leadership) gets
// one reply; the op still applies here as on every node (the element is
// popped), as the internal client's.
func TestUnblockWhileRetrying(t *testing.T) {
	for _, how := range []string{"CLIENT UNBLOCK", "step-down"} {
		t.Run(how, func(t *testing.T) {
			te, r := replicatedEngine(t)
			cl, conn := te.client()
			pusher, pconn := te.client()
			admin, aconn := te.client()
			te.do(cl, conn, "BLPOP", "q", "0")
			te.commit(r, 1)
			te.do(pusher, pconn, "RPUSH", "q", "x")
			te.commit(r, 2) // the push applies; cl's BLPOP is proposed again
			if len(r.ops) != 1 || !cl.repl.retrying || cl.park != parkBlocked {
				t.Fatalf("%d ops, retrying %v, park %s", len(r.ops), cl.repl.retrying, cl.park)
			}
			want := "*-1\r\n"
			if how == "CLIENT UNBLOCK" {
				te.expect(admin, aconn, ":1\r\n", "CLIENT", "UNBLOCK", strconv.FormatInt(cl.ID, 10))
			} else {
				te.e.SetLeader(false)
				te.e.FlushOutputs()
				want = "-" + ErrUnblockedRole + "\r\n"
			}
			if got := string(conn.out); got != want {
				t.Fatalf("unblocked client got %q, want %q", got, want)
			}
			conn.out = conn.out[:0]
			te.commit(r, 3) // the retried BLPOP commits all the same
			if len(conn.out) != 0 || cl.park != parkNone || cl.repl.retrying {
				t.Fatalf("after the retry applied: output %q, park %s, retrying %v", conn.out, cl.park, cl.repl.retrying)
			}
			if te.e.DBs[0].Len() != 0 {
				t.Fatal("the retried BLPOP did not pop the element")
			}
			if te.e.repl.inflight != 0 || len(te.e.repl.pending) != 0 {
				t.Fatalf("%d in flight, %d pending", te.e.repl.inflight, len(te.e.repl.pending))
			}
		})
	}
}

// TestCachingSurvivesReadRound: CLIENT CACHING yes lasts until the next
// command has run; a read that first waits for its leadership round has
// not run yet, so the key it then reads is tracked.
func TestCachingSurvivesReadRound(t *testing.T) {
	te, r := replicatedEngine(t)
	te.e.Config.ReadMode = config.ReadLinearizable
	cl, conn := te.client()
	writer, wconn := te.client()
	te.do(cl, conn, "HELLO", "3")
	te.expect(cl, conn, "+OK\r\n", "CLIENT", "TRACKING", "on", "OPTIN")
	te.expect(cl, conn, "+OK\r\n", "CLIENT", "CACHING", "yes")
	te.e.ProcessBatch(cl, [][][]byte{argv("GET", "k")}, func() {})
	te.e.FlushOutputs()
	if cl.park != parkReadRound {
		t.Fatalf("GET parked %s", cl.park)
	}
	te.e.ReadsConfirmed(cl.repl.readNeed)
	te.e.FlushOutputs()
	if got := string(conn.out); got != "_\r\n" {
		t.Fatalf("GET answered %q", got)
	}
	conn.out = conn.out[:0]
	te.do(writer, wconn, "SET", "k", "v")
	te.commit(r, 1)
	if got := string(conn.out); !strings.Contains(got, "invalidate") || !strings.Contains(got, "$1\r\nk\r\n") {
		t.Fatalf("no invalidation for k: %q", got)
	}
}

// TestCachingSurvivesProposal: a script proposed after CLIENT CACHING yes
// runs when its op applies; the keys it reads then are tracked for the
// client, as Redis tracks a script's reads for its caller.
func TestCachingSurvivesProposal(t *testing.T) {
	te, r := replicatedEngine(t)
	cl, conn := te.client()
	writer, wconn := te.client()
	te.do(cl, conn, "HELLO", "3")
	te.expect(cl, conn, "+OK\r\n", "CLIENT", "TRACKING", "on", "OPTIN")
	te.expect(cl, conn, "+OK\r\n", "CLIENT", "CACHING", "yes")
	te.do(cl, conn, "EVAL", "return redis.call('get', KEYS[1])", "1", "k")
	if cl.park != parkProposed {
		t.Fatalf("EVAL parked %s", cl.park)
	}
	te.commit(r, 1)
	if got := string(conn.out); got != "_\r\n" {
		t.Fatalf("EVAL answered %q", got)
	}
	conn.out = conn.out[:0]
	te.do(writer, wconn, "SET", "k", "v")
	te.commit(r, 2)
	if got := string(conn.out); !strings.Contains(got, "invalidate") || !strings.Contains(got, "$1\r\nk\r\n") {
		t.Fatalf("no invalidation for k: %q", got)
	}
}
