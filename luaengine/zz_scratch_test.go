package luaengine

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	data, err := os.ReadFile("/tmp/luatable_scripts.txt")
	if err != nil {
		t.Skip()
	}
	e := New()
	for _, s := range strings.Split(string(data), "\n") {
		if s == "" {
			continue
		}
		done := make(chan string)
		go func() {
			proto, flags, err := Compile([]byte(s))
			if err != nil {
				done <- err.Error()
				return
			}
			sc := &Script{SHA: "test", Proto: proto, Flags: flags}
			done <- run(t, e, sc, &fakeCaller{reply: []byte(":0\r\n")}, nil, nil)
		}()
		select {
		case out := <-done:
			t.Logf("%s\n  => %q", s, out)
		case <-time.After(3 * time.Second):
			t.Fatalf("hang: %s", s)
		}
	}
}
