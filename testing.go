package lockkv

import "testing"

// RunT starts a server on a free loopback port with a TestClock, and closes
// it when the test ends.
func RunT(t testing.TB) *Server {
	t.Helper()
	return RunTWith(t, Config{})
}

// RunTWith is RunT with a configuration; a nil Clock becomes a TestClock.
func RunTWith(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = NewTestClock()
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatalf("lockkv: %v", err)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("lockkv: start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
