package lockkv_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/store"
)

// mustDo sends args on c and requires the reply want (in Value.String's
// form).
func mustDo(t *testing.T, c *testutil.Conn, want string, args ...string) {
	t.Helper()
	if got := c.MustDo(t, args...).String(); got != want {
		t.Fatalf("%q: got %s, want %s", args, got, want)
	}
}

// TestRunTFastForward checks the embedding promise: a test's clock moves
// leases forward, and keys whose deadline passed vanish at once and are
// reclaimed without a client touching them.
func TestRunTFastForward(t *testing.T) {
	srv := lockkv.RunT(t)
	c := testutil.MustDial(t, srv.Addr())
	srv.Do(func(e *engine.Engine) {
		now := e.NowMs()
		e.DBs[0].Set("lease", store.NewString([]byte("owner")), now+30_000, now)
		e.DBs[0].Set("forever", store.NewString([]byte("x")), 0, now)
	})
	mustDo(t, c, `"owner"`, "GET", "lease")
	srv.Clock().FastForward(29 * time.Second)
	mustDo(t, c, `"owner"`, "GET", "lease")
	srv.Clock().FastForward(2 * time.Second)
	mustDo(t, c, "(nil)", "GET", "lease")
	var n int
	srv.Do(func(e *engine.Engine) { n = e.DBs[0].Len() })
	if n != 1 {
		t.Fatalf("after the deadline %d keys remain; want 1 (the expired lease reclaimed by active expiry)", n)
	}
}

func TestFrozenClock(t *testing.T) {
	clock := lockkv.NewTestClock()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock.Set(start)
	srv := lockkv.RunTWith(t, lockkv.Config{Clock: clock})
	time.Sleep(5 * time.Millisecond)
	if got := srv.Clock().Now(); !got.Equal(start) {
		t.Fatalf("frozen clock moved: %v", got)
	}
	srv.Clock().FastForward(time.Minute)
	if got := srv.Clock().Now(); !got.Equal(start.Add(time.Minute)) {
		t.Fatalf("FastForward on a frozen clock: %v", got)
	}
}

func TestCloseIsIdempotentAndClosesClients(t *testing.T) {
	srv, err := lockkv.NewServer(lockkv.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	c := testutil.MustDial(t, srv.Addr())
	mustDo(t, c, "+PONG", "PING")
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if !c.Closed(2 * time.Second) {
		t.Fatal("client connection still open after Close")
	}
}

func TestManyClientsPipelines(t *testing.T) {
	srv := lockkv.RunT(t)
	const clients, depth = 20, 100
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		go func() {
			c, err := testutil.Dial(srv.Addr())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for j := 0; j < depth; j++ {
				if err := c.Send("ECHO", "m"); err != nil {
					errs <- err
					return
				}
			}
			for j := 0; j < depth; j++ {
				v, err := c.Read(5 * time.Second)
				if err != nil {
					errs <- err
					return
				}
				if v.Str != "m" {
					errs <- fmt.Errorf("reply %d: got %v, want \"m\"", j, v)
					return
				}
			}
			errs <- nil
		}()
	}
	for i := 0; i < clients; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
