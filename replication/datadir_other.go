//go:build !unix && !windows

package replication

import (
	"errors"
	"os"
	"runtime"
)

// lockFile has no implementation here: a data directory cannot be locked,
// so --data-dir is refused rather than left unprotected.
func lockFile(f *os.File) error {
	return errors.New("locking a data directory is not supported on " + runtime.GOOS)
}
