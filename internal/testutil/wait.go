// Package testutil holds the helpers the tests outside commands/ share: a
// RESP client and encoder (Conn, Value, Command), the one poll-until-
// deadline loop (Poll, Eventually) and a system clock for engines built
// in tests. Free loopback ports come from internal/testnet.
//
// Every helper that takes a TB calls Helper, so a failure is reported at
// the caller's line.
package testutil

import "time"

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Poll calls f until it returns nil or d has passed since the first call,
// sleeping a little longer after each failed try (from 5ms up to 50ms).
// It returns nil once f does, or f's last error.
func Poll(d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	pause := 5 * time.Millisecond
	for {
		err := f()
		if err == nil {
			return nil
		}
		if !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Eventually is Poll that fails t with f's last error when d passes.
func Eventually(t TB, d time.Duration, f func() error) {
	t.Helper()
	if err := Poll(d, f); err != nil {
		t.Fatalf("not within %v: %v", d, err)
	}
}
