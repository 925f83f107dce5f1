package server

import (
	"testing"

	"github.com/lockkv/lockkv/engine"
)

// TestHeldAfterAppliedScript: a request that a busy script held runs
// as soon as the script ends when the script ran from the replication
// layer's work (a Do, a script applied from the log on a follower), not
// at some later client request, which on an idle server may never come
// (a review finding of the event loop). The request is what a TLS client's reader
// submits after a protocol error (on the goroutines' path, any
// client's): a call, which a busy script always holds. On both loops.
func TestHeldAfterAppliedScript(t *testing.T) {
	for _, ae := range aeModes {
		t.Run("LOCKKV_AELOOP="+ae, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", ae)
			s := RunT(t)
			var submitted, wasHeld, ran bool
			s.Do(func(e *engine.Engine) {
				e.Config.LuaTimeLimit = 1 // busy after 1 ms
				serve := s.onBusy
				s.onBusy = func() {
					if !submitted {
						submitted = true
						go s.submit(request{kind: reqCall, fn: func() { ran = true }})
					}
					serve()
					if len(s.held) > 0 {
						wasHeld = true
						e.AbortScript()
					}
				}
			})
			s.Do(func(e *engine.Engine) {
				e.Call(e.NewClient(nil), [][]byte{[]byte("EVAL"), []byte("while true do end"), []byte("0")})
			})
			var held, done bool
			s.Do(func(*engine.Engine) { held, done = wasHeld, ran })
			if !held {
				t.Fatal("the script's round did not hold the request")
			}
			if !done {
				t.Error("the request the busy script held still waits after the script (run by a Do) ended")
			}
		})
	}
}
