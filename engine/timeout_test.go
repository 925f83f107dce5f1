package engine_test

import (
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// TestClientTimeout: with timeout set, clientsCron closes a client idle
// for more than timeout whole seconds (Redis's clock counts seconds), and
// never a subscriber, a monitor, or a client waiting (BLPOP, WAIT,
// CLIENT PAUSE).
func TestClientTimeout(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.Timeout = 1
	idle, iconn := te.Client()
	sub, sconn := te.Client()
	mon, mconn := te.Client()
	blk, bconn := te.Client()
	wt, wconn := te.Client()
	te.Do(idle, iconn, "PING")
	te.Do(sub, sconn, "SUBSCRIBE", "ch")
	te.Do(mon, mconn, "MONITOR")
	te.Do(blk, bconn, "BLPOP", "list", "0")
	te.Do(wt, wconn, "WAIT", "1", "0")
	if blk.ParkForTest() != engine.ParkBlocked || wt.ParkForTest() != engine.ParkWait {
		t.Fatal("BLPOP or WAIT did not block")
	}
	cron := func() {
		for i := 0; i < 2; i++ { // 5 clients a call: every one looked at
			te.E.Cron()
		}
	}

	// The engine's clock starts at a whole second: 1.999 s idle is one
	// second by Redis's clock, not more than timeout.
	te.Advance(1999 * time.Millisecond)
	cron()
	if idle.Freed() {
		t.Fatal("closed after 1.999 s with timeout 1")
	}
	te.Advance(time.Millisecond)
	cron()
	if !idle.Freed() {
		t.Fatal("idle client not closed after 2 s with timeout 1")
	}
	for name, cl := range map[string]*engine.Client{"subscriber": sub, "monitor": mon, "BLPOP": blk, "WAIT": wt} {
		if cl.Freed() {
			t.Errorf("the %s was closed by timeout", name)
		}
	}

	// Output counts as interaction, as Redis's writes do.
	te.E.Config.Timeout = 0
	reader, rconn := te.Client()
	te.Do(reader, rconn, "HELLO", "3")
	te.Do(reader, rconn, "CLIENT", "TRACKING", "on")
	te.Do(reader, rconn, "GET", "k")
	te.E.Config.Timeout = 1
	te.Advance(1500 * time.Millisecond)
	writer, wrconn := te.Client()
	te.Do(writer, wrconn, "SET", "k", "v") // invalidates reader's k
	if len(rconn.Out) == 0 {
		t.Fatal("no invalidation sent")
	}
	te.Advance(time.Second)
	cron()
	// Its last command was 2.5 s ago (2 s by whole seconds): closed, but
	// for the invalidation 1 s ago.
	if reader.Freed() {
		t.Error("a client sent an invalidation 1 s ago was closed with timeout 1")
	}
}

// TestClientTimeoutIncremental: each Cron looks at clients/hz of them, so
// a thousand idle clients go over hz calls, not in one.
func TestClientTimeoutIncremental(t *testing.T) {
	te := enginetest.New(t)
	var cls []*engine.Client
	for i := 0; i < 1000; i++ {
		cl, _ := te.Client()
		cls = append(cls, cl)
	}
	te.E.Config.Timeout = 1
	te.Advance(3 * time.Second)
	freed := func() int {
		n := 0
		for _, cl := range cls {
			if cl.Freed() {
				n++
			}
		}
		return n
	}
	te.E.Cron()
	if n := freed(); n != 100 {
		t.Fatalf("one Cron closed %d of 1000 idle clients; want 100 (hz 10)", n)
	}
	// Fewer clients, fewer visits a call (clients/hz), as in Redis.
	calls := 1
	for ; freed() < 1000 && calls < 100; calls++ {
		te.E.Cron()
	}
	if n := freed(); n != 1000 {
		t.Fatalf("%d Crons closed %d of 1000", calls, n)
	}
	// Freed clients leave the ring as the next pass meets them.
	te.E.Cron()
	if te.E.CronRingForTest() != 0 || len(te.E.Clients()) != 0 {
		t.Fatalf("ring %d, clients %d after all were closed", te.E.CronRingForTest(), len(te.E.Clients()))
	}
}
