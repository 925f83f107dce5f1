package engine_test

import (
	"testing"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// farConn is a test connection from another host.
type farConn struct{ enginetest.Conn }

func (c *farConn) RemoteAddr() string { return "192.0.2.7:5000" }

// TestDebugCommandGate: enable-debug-command as in Redis 7.0.15. Under no
// DEBUG is refused right after the arity check (before AUTH, flagging a
// transaction), under local only loopback clients run it, under yes all.
func TestDebugCommandGate(t *testing.T) {
	te := enginetest.New(t)
	local, lconn := te.Client()
	farC := &farConn{}
	far := te.E.NewClient(farC)
	do := func(cl *engine.Client, conn *enginetest.Conn, args ...string) string { return te.Do(cl, conn, args...) }
	refused := "-" + engine.ErrDebugNotAllowed + "\r\n"

	if te.E.Config.EnableDebugCommand != config.ProtectedNo {
		t.Fatalf("enable-debug-command defaults to %q", te.E.Config.EnableDebugCommand)
	}
	if got := do(local, lconn, "DEBUG", "SLEEP", "0"); got != refused {
		t.Errorf("DEBUG under no: %q", got)
	}
	if got := do(local, lconn, "DEBUG"); got != "-ERR wrong number of arguments for 'debug' command\r\n" {
		t.Errorf("DEBUG with no subcommand: %q", got)
	}
	// In MULTI: refused, and EXEC aborts.
	do(local, lconn, "MULTI")
	if got := do(local, lconn, "DEBUG", "OBJECT", "k"); got != refused {
		t.Errorf("DEBUG in MULTI: %q", got)
	}
	if got := do(local, lconn, "EXEC"); got != "-EXECABORT Transaction discarded because of previous errors.\r\n" {
		t.Errorf("EXEC after a refused DEBUG: %q", got)
	}

	te.E.Config.EnableDebugCommand = config.ProtectedLocal
	if got := do(local, lconn, "DEBUG", "SLEEP", "0"); got != "+OK\r\n" {
		t.Errorf("DEBUG under local from 127.0.0.1: %q", got)
	}
	if got := do(far, &farC.Conn, "DEBUG", "SLEEP", "0"); got != refused {
		t.Errorf("DEBUG under local from afar: %q", got)
	}

	te.E.Config.EnableDebugCommand = config.ProtectedYes
	if got := do(far, &farC.Conn, "DEBUG", "SLEEP", "0"); got != "+OK\r\n" {
		t.Errorf("DEBUG under yes from afar: %q", got)
	}

	// Before AUTH the refusal comes first, as in Redis.
	te.E.Config.EnableDebugCommand = config.ProtectedNo
	te.E.Config.RequirePass = "pw"
	cl, conn := te.Client()
	if got := do(cl, conn, "DEBUG", "SLEEP", "0"); got != refused {
		t.Errorf("DEBUG before AUTH: %q", got)
	}
}

func TestIsLocalAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:6379": true, "[::1]:6379": true, "127.0.0.2:1": false,
		"192.0.2.1:1": false, "[::ffff:127.0.0.1]:1": false, "": false, "garbage": false,
	} {
		if got := engine.IsLocalAddr(addr); got != want {
			t.Errorf("IsLocalAddr(%q) = %v", addr, got)
		}
	}
}

// TestProtectedModeDecision: protected mode turns away non-local clients
// only while it is on and there is no password.
func TestProtectedModeDecision(t *testing.T) {
	e := enginetest.NewWith(t, engine.Options{Clock: &enginetest.Clock{}}).E
	if !e.ProtectedModeDeniesForTest("192.0.2.1:1") || e.ProtectedModeDeniesForTest("127.0.0.1:1") || e.ProtectedModeDeniesForTest("[::1]:1") {
		t.Error("protected mode by default: only loopback clients")
	}
	e.Config.RequirePass = "pw"
	if e.ProtectedModeDeniesForTest("192.0.2.1:1") {
		t.Error("a password lifts protected mode")
	}
	e.Config.RequirePass = ""
	e.Config.ProtectedMode = false
	if e.ProtectedModeDeniesForTest("192.0.2.1:1") {
		t.Error("protected-mode no")
	}
}
