package server

import (
	"log/slog"
	"testing"

	// A server has the command families the root package imports.
	_ "github.com/lockkv/lockkv/admin"
	_ "github.com/lockkv/lockkv/commands"
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/testutil"
)

// RunT starts a server with the engine's default settings on a free
// loopback port and closes it when the test ends: lockkv.RunT without
// its TestClock, for this package's tests.
func RunT(t testing.TB) *Server {
	t.Helper()
	ecfg := config.NewConfig()
	ecfg.LogLevel = new(slog.LevelVar)
	s := New(Config{Clock: testutil.SystemClock{}, Engine: ecfg})
	if err := s.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
