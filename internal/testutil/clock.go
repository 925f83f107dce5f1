package testutil

import "time"

// SystemClock is the wall clock, for engines and nodes a test builds
// itself (store.Clock and the clocks of commands and replication).
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
