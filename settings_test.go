package lockkv

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/redis/go-redis/v9"
)

// captureHandler keeps the messages logged.
type captureHandler struct {
	mu     sync.Mutex
	msgs   []string
	levels []slog.Level
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.msgs = append(h.msgs, r.Message)
	h.levels = append(h.levels, r.Level)
	h.mu.Unlock()
	return nil
}

// count returns how many messages were msg at level.
func (h *captureHandler) count(level slog.Level, msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for i, m := range h.msgs {
		if m == msg && h.levels[i] == level {
			n++
		}
	}
	return n
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func (h *captureHandler) has(msg string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.msgs {
		if m == msg {
			return true
		}
	}
	return false
}

// TestLogLevel: CONFIG SET loglevel moves the server's log level, and
// redis.log follows it as in Redis.
func TestLogLevel(t *testing.T) {
	h := &captureHandler{}
	srv := RunTWith(t, Config{Logger: slog.New(h)})
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	logs := func(level, msg string) {
		t.Helper()
		if err := c.Eval(ctx, "redis.log(redis."+level+", ARGV[1])", nil, msg).Err(); err != nil && err != redis.Nil {
			t.Fatal(err)
		}
	}
	if v, err := c.ConfigGet(ctx, "loglevel").Result(); err != nil || v["loglevel"] != "notice" {
		t.Fatalf("CONFIG GET loglevel = %v, %v", v, err)
	}
	logs("LOG_DEBUG", "d1")
	logs("LOG_NOTICE", "n1")
	if h.has("d1") || !h.has("n1") {
		t.Errorf("at notice: debug logged %v, notice logged %v", h.has("d1"), h.has("n1"))
	}
	if err := c.ConfigSet(ctx, "loglevel", "debug").Err(); err != nil {
		t.Fatal(err)
	}
	logs("LOG_DEBUG", "d2")
	logs("LOG_VERBOSE", "v2")
	if !h.has("d2") || !h.has("v2") {
		t.Error("at debug, debug and verbose lines are not logged")
	}
	if err := c.ConfigSet(ctx, "loglevel", "warning").Err(); err != nil {
		t.Fatal(err)
	}
	logs("LOG_NOTICE", "n3")
	logs("LOG_WARNING", "w3")
	if h.has("n3") || !h.has("w3") {
		t.Errorf("at warning: notice logged %v, warning logged %v", h.has("n3"), h.has("w3"))
	}
	if v, err := c.ConfigGet(ctx, "loglevel").Result(); err != nil || v["loglevel"] != "warning" {
		t.Fatalf("CONFIG GET loglevel = %v, %v", v, err)
	}
	var level slog.Level
	srv.Do(func(e *engine.Engine) { level = e.Config.LogLevel.Level() })
	if level != slog.LevelWarn {
		t.Errorf("server level %v", level)
	}
}

// TestDebugDisabledByDefault: an embedded server refuses DEBUG unless its
// Config enables it.
func TestDebugDisabledByDefault(t *testing.T) {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: RunT(t).Addr()})
	defer c.Close()
	if err := c.Do(ctx, "DEBUG", "SLEEP", "0").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR DEBUG command not allowed.") {
		t.Errorf("DEBUG by default: %v", err)
	}
	c2 := redis.NewClient(&redis.Options{Addr: RunTWith(t, Config{EnableDebugCommand: "local"}).Addr()})
	defer c2.Close()
	if err := c2.Do(ctx, "DEBUG", "SLEEP", "0").Err(); err != nil {
		t.Errorf("DEBUG under local from 127.0.0.1: %v", err)
	}
	if _, err := NewServer(Config{EnableDebugCommand: "sometimes"}); err == nil {
		t.Error("enable-debug-command sometimes: accepted")
	}
}

// Config.Settings are applied as a config file's lines: validated, and
// refused where CONFIG SET would refuse them; INFO names the config file.
func TestConfigSettings(t *testing.T) {
	srv := RunTWith(t, Config{
		Settings: []Setting{
			{Name: "maxmemory", Args: []string{"64mb"}},
			{Name: "client-output-buffer-limit", Args: []string{"pubsub", "1mb", "512kb", "5"}},
			{Name: "lua-time-limit", Args: []string{"250"}},
		},
		ConfigFile: "/etc/lockkv/lockkv.conf",
	})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	got, err := rdb.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"maxmemory": "67108864", "busy-reply-threshold": "250",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 5"} {
		if got[k] != v {
			t.Errorf("CONFIG GET %s = %q, want %q", k, got[k], v)
		}
	}
	info, _ := rdb.Info(ctx, "server").Result()
	if !strings.Contains(info, "\r\nconfig_file:/etc/lockkv/lockkv.conf\r\n") || !strings.Contains(info, "\r\nlockkv_version:") {
		t.Errorf("INFO server:\n%s", info)
	}

	for _, st := range []Setting{
		{Name: "appendonly", Args: []string{"yes"}},
		{Name: "maxmemory", Args: []string{"lots"}},
		{Name: "no-such-setting", Args: []string{"1"}},
		{Name: "timeout", Args: []string{"1", "2"}},
	} {
		if _, err := NewServer(Config{Settings: []Setting{st}}); err == nil || !strings.Contains(err.Error(), st.Name) {
			t.Errorf("%v: NewServer: %v, want an error naming it", st, err)
		}
	}
}
