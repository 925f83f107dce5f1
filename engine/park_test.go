package engine_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
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
	te := enginetest.New(t)
	cl, _ := te.Client()
	for k := engine.ParkBlocked; k < engine.ParkKinds; k++ {
		te.E.ParkForTest(cl, k)
		if cl.ParkForTest() != k {
			t.Fatalf("park %s: kind %s", k, cl.ParkForTest())
		}
		mustPanic(t, "park over "+k.String(), func() { te.E.ParkForTest(cl, engine.ParkPaused) })
		other := engine.ParkBlocked
		if k == engine.ParkBlocked {
			other = engine.ParkWait
		}
		mustPanic(t, "unpark "+other.String()+" from "+k.String(), func() { te.E.UnparkForTest(cl, other) })
		if cl.ParkForTest() != k {
			t.Fatalf("a refused transition changed %s to %s", k, cl.ParkForTest())
		}
		te.E.UnparkForTest(cl, k)
		if cl.ParkForTest() != engine.ParkNone {
			t.Fatalf("unpark %s left %s", k, cl.ParkForTest())
		}
	}
	mustPanic(t, "unpark a client not parked", func() { te.E.UnparkForTest(cl, engine.ParkNone) })
	mustPanic(t, "park as none", func() { te.E.ParkForTest(cl, engine.ParkNone) })
}

// TestParkOverlapIsInternalError: a command that parks its client twice
// (here: blocks, then blocks again) is a bug; it is answered with the
// internal error, the client is left unparked and out of every wait queue,
// and it goes on.
func TestParkOverlapIsInternalError(t *testing.T) {
	te := enginetest.New(t)
	log := captureLog(te.E)
	serve := func(c *engine.Ctx, key []byte) bool {
		c.W.BulkString("served")
		return false
	}
	breakCommand(t, "blpop", func(c *engine.Ctx, args [][]byte) {
		c.Block(engine.BlockList, args[1:2], 0, serve)
		c.Block(engine.BlockList, args[2:3], 0, serve)
	})
	cl, conn := te.Client()
	other, oconn := te.Client()
	te.Expect(cl, conn, "-"+engine.ErrInternal("blpop")+"\r\n", "BLPOP", "q1", "q2", "0")
	if cl.ParkForTest() != engine.ParkNone || te.E.BlockedClients() != 0 || te.E.BlockingKeys() != 0 {
		t.Fatalf("park %s, %d blocked clients, %d keys", cl.ParkForTest(), te.E.BlockedClients(), te.E.BlockingKeys())
	}
	if !strings.Contains(log.String(), "parked blocked while blocked") {
		t.Errorf("the overlap was not logged:\n%s", log)
	}
	te.Expect(other, oconn, ":1\r\n", "RPUSH", "q1", "x")
	te.Expect(cl, conn, "+PONG\r\n", "PING")
}

// TestClientTimeoutParked: timeout closes no parked client, whatever the
// kind, even with nothing queued behind its command (a read waiting for its
// leadership round was missed before the kinds).
func TestClientTimeoutParked(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.Timeout = 1
	now := te.E.NowMs() + 5000
	for k := engine.ParkBlocked; k < engine.ParkKinds; k++ {
		cl, _ := te.Client()
		te.E.ParkForTest(cl, k)
		if cl.QueuedForTest() != 0 {
			t.Fatal("queue not empty")
		}
		if te.E.ClientTimedOutForTest(cl, now) {
			t.Errorf("a client parked %s was closed by timeout", k)
		}
		te.E.UnparkForTest(cl, k)
		if !te.E.ClientTimedOutForTest(cl, now) {
			t.Errorf("an idle client (was %s) not closed", k)
		}
	}
}

// fakeAdmin is a FakeCluster that takes RAFT.NODE ADD and keeps its done.
type fakeAdmin struct {
	*enginetest.FakeCluster
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
	adm := &fakeAdmin{FakeCluster: enginetest.NewFakeCluster("n1")}
	te := enginetest.NewWith(t, engine.Options{Replication: &engine.Replication{
		Cluster: adm, Admin: adm, Log: &enginetest.StubReplicator{}, Origin: 7}})
	te.E.SetLeader(true)
	te.E.Config.ReadMode = config.ReadLease
	cl, conn := te.Client()
	admin, aconn := te.Client()
	te.E.ProcessBatch(cl, [][][]byte{argv("RAFT.NODE", "ADD", "n4", "10.0.0.4:7004", "10.0.0.4:6004"), argv("PING")}, func() {})
	te.E.FlushOutputs()
	if adm.done == nil || cl.ParkForTest() != engine.ParkReply || len(conn.Out) != 0 {
		t.Fatalf("RAFT.NODE ADD: done %v, park %s, output %q", adm.done != nil, cl.ParkForTest(), conn.Out)
	}
	id := strconv.FormatInt(cl.ID, 10)
	if out := te.Do(admin, aconn, "CLIENT", "LIST", "ID", id); !strings.Contains(out, " flags=b ") {
		t.Errorf("CLIENT LIST: %q", out)
	}
	if out := te.Do(admin, aconn, "INFO", "clients"); !strings.Contains(out, "blocked_clients:1\r\n") {
		t.Errorf("INFO clients: %q", out)
	}
	te.Expect(admin, aconn, ":0\r\n", "CLIENT", "UNBLOCK", id)
	te.Expect(admin, aconn, ":0\r\n", "CLIENT", "UNBLOCK", id, "ERROR")
	if cl.ParkForTest() != engine.ParkReply || len(conn.Out) != 0 {
		t.Fatalf("after CLIENT UNBLOCK: park %s, output %q", cl.ParkForTest(), conn.Out)
	}
	adm.done(nil)
	te.E.FlushOutputs()
	if got := string(conn.Out); got != "+OK\r\n+PONG\r\n" {
		t.Fatalf("got %q", got)
	}
	if cl.ParkForTest() != engine.ParkNone {
		t.Fatalf("park %s after the reply", cl.ParkForTest())
	}
	if out := te.Do(admin, aconn, "INFO", "clients"); !strings.Contains(out, "blocked_clients:0\r\n") {
		t.Errorf("INFO clients after the reply: %q", out)
	}
}

// TestHeldClientsCounted: blocked, paused and WAITing clients show the b
// flag and count in blocked_clients; a client whose write is in flight
// does neither (it waits for its own op, not for something that may take
// any time).
func TestHeldClientsCounted(t *testing.T) {
	te, r := replicatedEngine(t)
	admin, aconn := te.Client()
	blk, bconn := te.Client()
	te.Do(blk, bconn, "BLPOP", "q", "0")
	commit(te, r, 1) // BLPOP is an op; applied here, it blocks
	wt, wconn := te.Client()
	te.Do(wt, wconn, "WAIT", "1", "0")
	wr, wrconn := te.Client()
	te.Do(wr, wrconn, "SET", "k", "v")
	if len(r.Ops) != 1 || wr.ParkForTest() != engine.ParkProposed {
		t.Fatalf("%d ops, park %s", len(r.Ops), wr.ParkForTest())
	}
	te.Expect(admin, aconn, "+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	ps, pconn := te.Client()
	te.Do(ps, pconn, "SET", "k2", "v")
	want := map[*engine.Client]engine.ParkKind{blk: engine.ParkBlocked, wt: engine.ParkWait, wr: engine.ParkProposed, ps: engine.ParkPaused}
	for cl, k := range want {
		if cl.ParkForTest() != k {
			t.Fatalf("client %d parked %s, want %s", cl.ID, cl.ParkForTest(), k)
		}
		out := te.Do(admin, aconn, "CLIENT", "LIST", "ID", strconv.FormatInt(cl.ID, 10))
		if got := strings.Contains(out, " flags=b "); got != k.HeldForTest() {
			t.Errorf("%s: CLIENT LIST %q", k, out)
		}
	}
	if out := te.Do(admin, aconn, "INFO", "clients"); !strings.Contains(out, "blocked_clients:3\r\n") {
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
			cl, conn := te.Client()
			pusher, pconn := te.Client()
			admin, aconn := te.Client()
			te.Do(cl, conn, "BLPOP", "q", "0")
			commit(te, r, 1)
			te.Do(pusher, pconn, "RPUSH", "q", "x")
			commit(te, r, 2) // the push applies; cl's BLPOP is proposed again
			if len(r.Ops) != 1 || !cl.RetryingForTest() || cl.ParkForTest() != engine.ParkBlocked {
				t.Fatalf("%d ops, retrying %v, park %s", len(r.Ops), cl.RetryingForTest(), cl.ParkForTest())
			}
			want := "*-1\r\n"
			if how == "CLIENT UNBLOCK" {
				te.Expect(admin, aconn, ":1\r\n", "CLIENT", "UNBLOCK", strconv.FormatInt(cl.ID, 10))
			} else {
				te.E.SetLeader(false)
				te.E.FlushOutputs()
				want = "-" + engine.ErrUnblockedRole + "\r\n"
			}
			if got := string(conn.Out); got != want {
				t.Fatalf("unblocked client got %q, want %q", got, want)
			}
			conn.Out = conn.Out[:0]
			commit(te, r, 3) // the retried BLPOP commits all the same
			if len(conn.Out) != 0 || cl.ParkForTest() != engine.ParkNone || cl.RetryingForTest() {
				t.Fatalf("after the retry applied: output %q, park %s, retrying %v", conn.Out, cl.ParkForTest(), cl.RetryingForTest())
			}
			if te.E.DBs[0].Len() != 0 {
				t.Fatal("the retried BLPOP did not pop the element")
			}
			if inflight, pending := te.E.ReplInFlightForTest(); inflight != 0 || pending != 0 {
				t.Fatalf("%d in flight, %d pending", inflight, pending)
			}
		})
	}
}

// TestCachingSurvivesReadRound: CLIENT CACHING yes lasts until the next
// command has run; a read that first waits for its leadership round has
// not run yet, so the key it then reads is tracked.
func TestCachingSurvivesReadRound(t *testing.T) {
	te, r := replicatedEngine(t)
	te.E.Config.ReadMode = config.ReadLinearizable
	cl, conn := te.Client()
	writer, wconn := te.Client()
	te.Do(cl, conn, "HELLO", "3")
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "TRACKING", "on", "OPTIN")
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "CACHING", "yes")
	te.E.ProcessBatch(cl, [][][]byte{argv("GET", "k")}, func() {})
	te.E.FlushOutputs()
	if cl.ParkForTest() != engine.ParkReadRound {
		t.Fatalf("GET parked %s", cl.ParkForTest())
	}
	te.E.ReadsConfirmed(cl.ReadNeedForTest())
	te.E.FlushOutputs()
	if got := string(conn.Out); got != "_\r\n" {
		t.Fatalf("GET answered %q", got)
	}
	conn.Out = conn.Out[:0]
	te.Do(writer, wconn, "SET", "k", "v")
	commit(te, r, 1)
	if got := string(conn.Out); !strings.Contains(got, "invalidate") || !strings.Contains(got, "$1\r\nk\r\n") {
		t.Fatalf("no invalidation for k: %q", got)
	}
}

// TestCachingSurvivesProposal: a script proposed after CLIENT CACHING yes
// runs when its op applies; the keys it reads then are tracked for the
// client, as Redis tracks a script's reads for its caller.
func TestCachingSurvivesProposal(t *testing.T) {
	te, r := replicatedEngine(t)
	cl, conn := te.Client()
	writer, wconn := te.Client()
	te.Do(cl, conn, "HELLO", "3")
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "TRACKING", "on", "OPTIN")
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "CACHING", "yes")
	te.Do(cl, conn, "EVAL", "return redis.call('get', KEYS[1])", "1", "k")
	if cl.ParkForTest() != engine.ParkProposed {
		t.Fatalf("EVAL parked %s", cl.ParkForTest())
	}
	commit(te, r, 1)
	if got := string(conn.Out); got != "_\r\n" {
		t.Fatalf("EVAL answered %q", got)
	}
	conn.Out = conn.Out[:0]
	te.Do(writer, wconn, "SET", "k", "v")
	commit(te, r, 2)
	if got := string(conn.Out); !strings.Contains(got, "invalidate") || !strings.Contains(got, "$1\r\nk\r\n") {
		t.Fatalf("no invalidation for k: %q", got)
	}
}

// TestPipelineAllocsNothing: running a client's pipeline and flushing its
// reply allocates nothing of its own (the queue keeps its array from one
// pipeline to the next), so a loaded server's garbage is its commands'.
func TestPipelineAllocsNothing(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	cmds := [][][]byte{{[]byte("PING")}}
	done := func() {}
	run := func() {
		te.E.ProcessBatch(cl, cmds, done)
		te.E.FlushOutputs()
		if string(conn.Out) != "+PONG\r\n" {
			t.Fatalf("reply %q", conn.Out)
		}
		conn.Out = conn.Out[:0]
	}
	run()
	if allocs := testing.AllocsPerRun(200, run); allocs != 0 {
		t.Errorf("a pipeline allocates %v times, want 0", allocs)
	}
}
