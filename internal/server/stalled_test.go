package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
)

// TestStalledMeasure: the watchdog's measure counts local work, not
// waiting and not applying committed entries; a busy script counts only
// when it runs here alone (a read-only one), not from the log.
func TestStalledMeasure(t *testing.T) {
	s, addr := runNode(t)
	// Idle, it is 0: once the command goroutine finished the round of
	// runNode's last Do (which returns before that round's end).
	testutil.Eventually(t, 5*time.Second, func() error {
		if d := s.stalled(); d != 0 {
			return fmt.Errorf("idle server stalled %v", d)
		}
		return nil
	})
	var inside time.Duration
	s.Do(func(e *engine.Engine) {
		time.Sleep(20 * time.Millisecond)
		inside = s.stalled()
	})
	if inside < 20*time.Millisecond {
		t.Errorf("inside a 20 ms piece of work: stalled %v", inside)
	}

	// Scripts past busy-reply-threshold call OnBusy: look from there.
	type look struct {
		applying bool
		stalled  time.Duration
	}
	var looks []look
	s.Do(func(e *engine.Engine) {
		e.Config.LuaTimeLimit = 1
		serve := s.onBusy
		s.onBusy = func() {
			if len(looks) < 3 {
				time.Sleep(2 * time.Millisecond) // a stall past any clock's grain
				looks = append(looks, look{e.InApply(), s.stalled()})
			}
			serve()
		}
	})
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 30 * time.Second, MaxRetries: -1})
	defer c.Close()
	const loop = "local n = 0 for i = 1, 300000 do n = n + i end "
	if err := c.Eval(ctx, loop+"return redis.call('set', KEYS[1], n)", []string{"k"}).Err(); err != nil {
		t.Fatal(err)
	}
	var fromLog []look
	s.Do(func(e *engine.Engine) { fromLog, looks = looks, nil })
	if err := c.EvalRO(ctx, loop+"return n", nil).Err(); err != nil {
		t.Fatal(err)
	}
	var local []look
	s.Do(func(e *engine.Engine) { local = looks })
	if len(fromLog) == 0 || len(local) == 0 {
		t.Fatalf("the scripts never went busy: %d and %d looks", len(fromLog), len(local))
	}
	for _, l := range fromLog {
		if !l.applying || l.stalled != 0 {
			t.Errorf("a script applied from the log: applying %v, stalled %v", l.applying, l.stalled)
		}
	}
	for _, l := range local {
		if l.applying || l.stalled < 2*time.Millisecond {
			t.Errorf("a read-only script run here alone: applying %v, stalled %v", l.applying, l.stalled)
		}
	}
}
