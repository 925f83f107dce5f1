package replication

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// dataDir is a node's data directory, locked for as long as the node has
// it open: an exclusive, non-blocking lock on its LOCK file (flock on
// Unix, LockFileEx on Windows), which the operating system drops when the
// process dies however it dies. A second process on the same directory
// fails at once instead of waiting on the stores' own file locks.
type dataDir struct {
	path string
	lock *os.File
}

// lockFileName is the lock's file in the data directory; it holds the PID
// of the process that holds it (for the message of one that cannot).
const lockFileName = "LOCK"

// errDataDirInUse is the error of a data directory another process holds.
var errDataDirInUse = errors.New("in use by another lockkv process")

// openDataDir checks that path is a usable directory (creating it if it
// does not exist) and locks it.
func openDataDir(path string) (*dataDir, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("data dir %s cannot be created: %w", path, unwrapPath(err))
		}
	case err != nil:
		return nil, fmt.Errorf("data dir %s cannot be used: %w", path, unwrapPath(err))
	case !st.IsDir():
		return nil, fmt.Errorf("data dir %s is not a directory", path)
	}
	if _, err := os.ReadDir(path); err != nil {
		return nil, fmt.Errorf("data dir %s is not readable: %w", path, unwrapPath(err))
	}
	lockPath := filepath.Join(path, lockFileName)
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data dir %s is not writable (lock file %s): %w", path, lockPath, unwrapPath(err))
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			holder := ""
			if b, err := os.ReadFile(lockPath); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
					holder = fmt.Sprintf(", held by pid %d", pid)
				}
			}
			return nil, fmt.Errorf("data dir %s is %w (lock %s%s)", path, errDataDirInUse, lockPath, holder)
		}
		return nil, fmt.Errorf("data dir %s: locking %s: %w", path, lockPath, err)
	}
	// A directory that lets the lock file be opened may still refuse new
	// files (the stores create theirs): try one.
	probe, err := os.CreateTemp(path, ".writable-*")
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data dir %s is not writable: %w", path, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataDir{path: path, lock: f}, nil
}

// Close releases the lock.
func (d *dataDir) Close() error { return d.lock.Close() }

// unwrapPath drops the *PathError wrapper, whose text repeats the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errLocked is what lockFile returns when another process holds the lock.
var errLocked = errors.New("locked")

// waitUnlocked waits until no other process holds a lock on the existing
// file at path, up to d, logging once that it waits: the stores' bbolt
// files are locked by whoever has them open, and bbolt waits for such a
// lock forever (raft-wal opens its metadata so) where an older lockkv or
// another tool holds it.
func (n *Node) waitUnlocked(path string, d time.Duration) error {
	deadline := time.Now().Add(d)
	logged := false
	for {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		err = lockFile(f)
		f.Close() // releases the lock just taken
		if err == nil {
			return nil
		}
		if !errors.Is(err, errLocked) {
			return fmt.Errorf("%s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is locked by another process (not a lockkv process using this data dir's LOCK: an older lockkv, or a tool that has it open); gave up after %v", path, d)
		}
		if !logged {
			n.log.Warn("waiting for a file another process has locked", "file", path, "for", d)
			logged = true
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-n.stop:
			return fmt.Errorf("%s: stopped while waiting for its lock", path)
		}
	}
}
