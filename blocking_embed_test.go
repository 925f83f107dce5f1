package lockkv_test

import (
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/commands"
)

// waitBlockedClients polls the engine until n clients are blocked.
func waitBlockedClients(t *testing.T, srv *lockkv.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		var got int
		srv.Do(func(e *commands.Engine) { got = e.BlockedClients() })
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d blocked clients, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBlockingFastForward: a blocking command's timeout follows the
// server's clock, so a test can make a 30 s BLPOP time out at once.
func TestBlockingFastForward(t *testing.T) {
	srv := lockkv.RunT(t)
	a := mustDial(t, srv.Addr())
	if err := a.Send("BLPOP", "jobs", "30"); err != nil {
		t.Fatal(err)
	}
	waitBlockedClients(t, srv, 1)
	var timed int
	srv.Do(func(e *commands.Engine) { timed = e.ClientsInTimeoutTable() })
	if timed != 1 {
		t.Fatalf("clients_in_timeout_table = %d, want 1", timed)
	}
	srv.Clock().FastForward(29 * time.Second)
	if v, err := a.Read(30 * time.Millisecond); err == nil {
		t.Fatalf("BLPOP answered %v before its timeout", v)
	}
	srv.Clock().FastForward(2 * time.Second)
	v, err := a.Read(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != "(nil array)" {
		t.Fatalf("BLPOP timed out with %s, want (nil array)", got)
	}
	waitBlockedClients(t, srv, 0)
	// Then a push serves a waiting client at once.
	if err := a.Send("BRPOP", "jobs", "0"); err != nil {
		t.Fatal(err)
	}
	waitBlockedClients(t, srv, 1)
	b := mustDial(t, srv.Addr())
	mustDo(t, b, ":2", "RPUSH", "jobs", "j1", "j2")
	if v, err = a.Read(2 * time.Second); err != nil || v.String() != `*["jobs", "j2"]` {
		t.Fatalf("BRPOP served %v, %v", v, err)
	}
	mustDo(t, b, `*["j1"]`, "LRANGE", "jobs", "0", "-1")
}
