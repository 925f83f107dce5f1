package lockkv

import (
	"sync"
	"time"
)

// SystemClock reads the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// TestClock is a clock a test can move. Time passes by itself like the
// system clock, offset by everything FastForward added; Freeze stops it so
// only FastForward and Set move it.
type TestClock struct {
	mu     sync.Mutex
	offset time.Duration
	frozen bool
	at     time.Time
	srv    *Server
}

// NewTestClock returns a clock that starts at the current time.
func NewTestClock() *TestClock { return &TestClock{} }

func (c *TestClock) attach(s *Server) {
	c.mu.Lock()
	c.srv = s
	c.mu.Unlock()
}

// Now returns the clock's time.
func (c *TestClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return c.at
	}
	return time.Now().Add(c.offset)
}

// FastForward moves the clock d forward and lets the server reclaim keys
// whose deadline passed, as if the time had really gone by.
func (c *TestClock) FastForward(d time.Duration) {
	c.mu.Lock()
	if c.frozen {
		c.at = c.at.Add(d)
	} else {
		c.offset += d
	}
	srv := c.srv
	c.mu.Unlock()
	if srv != nil {
		srv.cronNow()
	}
}

// Freeze stops the clock at its current time.
func (c *TestClock) Freeze() {
	c.mu.Lock()
	if !c.frozen {
		c.at = time.Now().Add(c.offset)
		c.frozen = true
	}
	c.mu.Unlock()
}

// Set freezes the clock at t.
func (c *TestClock) Set(t time.Time) {
	c.mu.Lock()
	c.frozen = true
	c.at = t
	srv := c.srv
	c.mu.Unlock()
	if srv != nil {
		srv.cronNow()
	}
}

// Clock returns the server's clock. It is a *TestClock when the server was
// started by RunT or configured with one.
func (s *Server) Clock() *TestClock {
	tc, _ := s.clock.(*TestClock)
	return tc
}
