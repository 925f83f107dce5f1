package replication

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
)

func TestDataDirLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d, err := openDataDir(dir) // created
	if err != nil {
		t.Fatal(err)
	}
	_, err = openDataDir(dir)
	lock := filepath.Join(dir, "LOCK")
	if !errors.Is(err, errDataDirInUse) || !strings.Contains(err.Error(), "data dir "+dir+" is in use") ||
		!strings.Contains(err.Error(), "lock "+lock) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second open: %v", err)
	}
	d.Close()
	d, err = openDataDir(dir)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	d.Close()

	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := openDataDir(file); err == nil || !strings.Contains(err.Error(), file+" is not a directory") {
		t.Fatalf("a file: %v", err)
	}
	under := filepath.Join(file, "sub")
	if _, err := openDataDir(under); err == nil || !strings.Contains(err.Error(), "data dir "+under+" cannot be used: not a directory") {
		t.Fatalf("under a file: %v", err)
	}
}

// A second node on a data directory a started node holds fails at Open,
// and the first node's Shutdown frees it.
func TestNodeDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	c := newTestCluster(t, 1, func(i int, cfg *Config) { cfg.DataDir = dir })
	c.set("k", "v")
	cfg := c.nodes[0].cfg
	cfg.RaftAddr = testnet.FreeAddr(t)
	n, err := New(cfg, func(func(*engine.Engine)) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Open(); !errors.Is(err, errDataDirInUse) {
		t.Fatalf("Open of a data dir in use: %v", err)
	}
	n.Shutdown()
	c.nodes[0].stop()
	c.nodes[0] = startNode(t, c.nodes[0].cfg)
	c.waitValue("k", "v")
}
