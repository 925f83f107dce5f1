//go:build !unix

package bench

import (
	"errors"
	"runtime"
	"time"
)

// SelfCPU is not implemented off Unix.
func SelfCPU() (time.Duration, error) {
	return 0, errors.New("the CPU time of the load generator is not measured on " + runtime.GOOS)
}

// RaiseOpenFiles does nothing off Unix.
func RaiseOpenFiles(need int) error { return nil }
