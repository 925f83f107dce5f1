package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/redisconf"
)

// load parses args as the command line after a config file with text.
func load(t *testing.T, text string, args ...string) (options, []lockkv.Setting, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "lockkv.conf")
	os.WriteFile(path, []byte(text), 0o644)
	var o options
	fs := newFlagSet(&o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	st, err := loadConfigFile(path, fs, &o)
	return o, st, err
}

func TestConfigFileDirectives(t *testing.T) {
	inc := filepath.Join(t.TempDir(), "more.conf")
	os.WriteFile(inc, []byte("join-timeout 5m\nmaxmemory 64mb\n"), 0o644)
	o, st, err := load(t, `# a lockkv node
PORT 7001
bind 10.1.2.3
tls-port 7443
node-id "n 1"
data-dir '/var/lib/lockkv'
bootstrap yes
raft-fsync no
peers n1=a:1,n2=b:2
loglevel verbose
requirepass "se\"cret"
timeout 300
client-output-buffer-limit pubsub 64mb 16mb 60
include `+inc+`
logfile /tmp/x.log
`, "--data-dir", "/flags/win")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want any }{
		{o.addr, "10.1.2.3:7001"}, {o.tlsAddr, "10.1.2.3:7443"}, {o.nodeID, "n 1"},
		{o.dataDir, "/flags/win"}, {o.bootstrap, true}, {o.raftFsync, false},
		{o.peers, "n1=a:1,n2=b:2"}, {o.logLevel, "verbose"}, {o.requirepass, `se"cret`},
		{o.joinTimeout, 5 * time.Minute}, {o.logFile, "/tmp/x.log"},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	want := []lockkv.Setting{{Name: "timeout", Args: []string{"300"}},
		{Name: "client-output-buffer-limit", Args: []string{"pubsub", "64mb", "16mb", "60"}},
		{Name: "maxmemory", Args: []string{"64mb"}}}
	if !slices.EqualFunc(st, want, func(a, b lockkv.Setting) bool { return a.Name == b.Name && slices.Equal(a.Args, b.Args) }) {
		t.Errorf("settings %v, want %v", st, want)
	}

	// --addr on the command line wins over port and bind; port 0 is no
	// plain listener; bind * is every IPv4 address.
	if o, _, err := load(t, "port 7001\nbind 10.1.2.3\n", "--addr", "127.0.0.1:9"); err != nil || o.addr != "127.0.0.1:9" {
		t.Errorf("--addr under port/bind: %q, %v", o.addr, err)
	}
	if o, _, err := load(t, "port 0\ntls-port 6380\n"); err != nil || o.addr != "" || o.tlsAddr != "127.0.0.1:6380" {
		t.Errorf("port 0: %q %q, %v", o.addr, o.tlsAddr, err)
	}
	if o, _, err := load(t, "bind * -::*\n"); err != nil || o.addr != ":6379" {
		t.Errorf("bind * -::*: %q, %v", o.addr, err)
	}
	if o, _, err := load(t, "bind *\nport 7000\n"); err != nil || o.addr != "0.0.0.0:7000" {
		t.Errorf("bind *: %q, %v", o.addr, err)
	}
}

func TestConfigFileErrors(t *testing.T) {
	for _, tc := range []struct{ text, msg string }{
		{"no-such-thing 1\n", "Bad directive or wrong number of arguments"},
		{"user default on\n", "Bad directive or wrong number of arguments"},
		{"version yes\n", "Bad directive or wrong number of arguments"},
		{"node-id a b\n", "wrong number of arguments"},
		{`node-id "a` + "\n", "Unbalanced quotes in configuration line"},
		{"bootstrap maybe\n", `parse error`},
		{"maxmemory lots\n", "argument must be a memory value"},
		{"appendonly yes\n", "lockkv does not support the append-only file"},
		{"daemonize yes\n", "lockkv does not support daemonizing"},
		{"replicaof 10.0.0.1 6379\n", "wrong number of arguments"},
		{"replicaof 10.0.0.1\n", "lockkv does not support Redis replication"},
		{"bind 127.0.0.1 -::1\n", "lockkv listens on one address"},
		{"maxmemory 1gb\nmaxmemory-policy allkeys-lru\n", "lockkv never evicts"},
		{"loglevel loud\n", "argument(s) must be one of the following: debug, verbose, notice, warning"},
		{"log-level loud\n", "want debug, info, warn or error"},
		{"# fine\n\ninclude /no/such/file.conf\n", "can't open config file '/no/such/file.conf': No such file or directory"},
	} {
		_, _, err := load(t, tc.text)
		var e *redisconf.Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, tc.msg) || e.Line == 0 || !strings.HasSuffix(e.File, "lockkv.conf") {
			t.Errorf("%q: %v, want %q at a line of lockkv.conf", tc.text, err, tc.msg)
		}
	}
	// A file that includes itself stops at a depth.
	dir := t.TempDir()
	self := filepath.Join(dir, "self.conf")
	os.WriteFile(self, []byte("include "+self+"\n"), 0o644)
	var o options
	if _, err := loadConfigFile(self, newFlagSet(&o), &o); err == nil || !strings.Contains(err.Error(), "include nested more than") {
		t.Errorf("self-including file: %v", err)
	}
}

// The binary reports a bad file Redis's way and exits with status 1;
// settings the file gives reach the server.
func TestConfigFileBinary(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("# x\nmaxmemory lots\n"), 0o644)
	_, errOut, code := run(t, lockkvBin(t), bad)
	want := "\n*** FATAL CONFIG FILE ERROR (lockkv dev) ***\nReading the configuration file " + bad + ", at line 2\n>>> 'maxmemory lots'\nargument must be a memory value\n"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
	_, errOut, code = run(t, lockkvBin(t), filepath.Join(dir, "missing.conf"))
	if code != 1 || !strings.Contains(errOut, "can't open config file '"+filepath.Join(dir, "missing.conf")+"': No such file or directory") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}
