package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
)

// TestRestoreRDB saves a server's keys, then brings them back twice:
// lockkv restore-rdb into a running server, and --load-rdb at start.
func TestRestoreRDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, err := lockkv.NewServer(lockkv.Config{Settings: []lockkv.Setting{{Name: "dir", Args: []string{dir}}}})
	if err == nil {
		err = src.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sc := redis.NewClient(&redis.Options{Addr: src.Addr()})
	defer sc.Close()
	sc.HSet(ctx, "lock", "uuid:1", "3")
	sc.PExpire(ctx, "lock", time.Hour)
	sc.RPush(ctx, "list", "a", "b")
	sc.Do(ctx, "SELECT", "2")
	sc2 := redis.NewClient(&redis.Options{Addr: src.Addr(), DB: 2})
	defer sc2.Close()
	sc2.Set(ctx, "in2", "x", 0)
	if err := sc.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "dump.rdb")

	check := func(addr string) {
		t.Helper()
		c := redis.NewClient(&redis.Options{Addr: addr, Password: "pw"})
		defer c.Close()
		if v, _ := c.HGet(ctx, "lock", "uuid:1").Result(); v != "3" {
			t.Errorf("%s: lock = %q", addr, v)
		}
		if d, _ := c.PTTL(ctx, "lock").Result(); d < 59*time.Minute {
			t.Errorf("%s: lock's TTL %v", addr, d)
		}
		if v, _ := c.LRange(ctx, "list", 0, -1).Result(); strings.Join(v, ",") != "a,b" {
			t.Errorf("%s: list = %v", addr, v)
		}
		c2 := redis.NewClient(&redis.Options{Addr: addr, Password: "pw", DB: 2})
		defer c2.Close()
		if v, _ := c2.Get(ctx, "in2").Result(); v != "x" {
			t.Errorf("%s: in2 = %q", addr, v)
		}
	}

	dst, err := lockkv.NewServer(lockkv.Config{RequirePass: "pw"})
	if err == nil {
		err = dst.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	out, errOut, code := run(t, lockkvBin(t), "restore-rdb", "--addr", dst.Addr(), "--requirepass", "pw", file)
	if code != 0 || !strings.Contains(out, "restored 3 keys") {
		t.Fatalf("restore-rdb: exit %d, %q %q", code, out, errOut)
	}
	check(dst.Addr())
	_, errOut, code = run(t, lockkvBin(t), "restore-rdb", "--addr", dst.Addr(), "--requirepass", "wrong", file)
	if code != 1 || !strings.Contains(errOut, "WRONGPASS") {
		t.Fatalf("restore-rdb with a wrong password: exit %d, %q", code, errOut)
	}
	_, errOut, code = run(t, lockkvBin(t), "restore-rdb", "--addr", dst.Addr(), filepath.Join(dir, "nonexistent.rdb"))
	if code != 1 || !strings.Contains(errOut, "no such file") {
		t.Fatalf("restore-rdb of no file: exit %d, %q", code, errOut)
	}

	p := startProc(t, nil, "--addr", "127.0.0.1:0", "--requirepass", "pw", "--load-rdb", file)
	p.waitLine(regexp.MustCompile(`DB loaded from disk.*keys=3`), 10*time.Second)
	check(p.waitLine(listeningRE, 10*time.Second)[1])
}
