package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
)

func TestLocksCommand(t *testing.T) {
	srv := lockkv.RunTWith(t, lockkv.Config{RequirePass: "pw"})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: "pw"})
	defer rdb.Close()
	ctx := context.Background()
	rdb.HSet(ctx, "orders-lock", "8f1c:42", 2)
	rdb.PExpire(ctx, "orders-lock", 30*time.Second)
	rdb.Set(ctx, "job-lock", "tok-1", time.Minute)
	for i := 0; i < 2500; i++ { // several round trips at --count 1000
		rdb.Set(ctx, "data"+string(rune('a'+i%26))+strings.Repeat("x", i%50), "v", 0)
	}
	var out bytes.Buffer
	if code := locksMain([]string{"--addr", srv.Addr(), "--requirepass", "pw"}, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") || lines[3] != "2 locks" {
		t.Fatalf("output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "orders-lock  reentrant") || !strings.Contains(out.String(), "8f1c:42 x2") || !strings.Contains(out.String(), "tok-1 x1") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	if code := locksMain([]string{"--addr", srv.Addr(), "--requirepass", "pw", "--match", "orders-*", "--json"}, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := strings.TrimSpace(out.String()); !strings.HasPrefix(got, `{"name":"orders-lock","type":"reentrant","lease_ms":`) ||
		!strings.HasSuffix(got, `"holders":[{"id":"8f1c:42","count":2,"lease_ms":-1}],"waiters":[]}`) {
		t.Fatalf("--json output: %s", got)
	}
	if code := locksMain([]string{"--addr", srv.Addr(), "--requirepass", "wrong"}, &out); code != 1 {
		t.Fatalf("wrong password: exit %d, want 1", code)
	}
}
