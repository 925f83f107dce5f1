package engine_test

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// TestNewRefusesOptions: options no engine could run with are errors.
func TestNewRefusesOptions(t *testing.T) {
	clock := &enginetest.Clock{T: time.UnixMilli(1_000_000)}
	withFile := config.NewConfig()
	withFile.ConfigFile = "/etc/lockkv.conf"
	noDBs := config.NewConfig()
	noDBs.Databases = 0
	fc := enginetest.NewFakeCluster("n1")
	r := &enginetest.StubReplicator{}
	for _, tc := range []struct {
		name string
		o    engine.Options
		want string
	}{
		{"no clock", engine.Options{}, "a clock is required"},
		{"no databases", engine.Options{Clock: clock, Config: noDBs}, "0 databases"},
		{"rewrite without a file", engine.Options{Clock: clock, Rewrite: func() error { return nil }}, "Rewrite without a config file"},
		{"replication without a cluster", engine.Options{Clock: clock, Replication: &engine.Replication{Log: r, Origin: 1}}, "without a Cluster"},
		{"log without an origin", engine.Options{Clock: clock, Replication: &engine.Replication{Cluster: fc, Log: r}}, "non-zero Origin"},
		{"origin without a log", engine.Options{Clock: clock, Replication: &engine.Replication{Cluster: fc, Origin: 1}}, "need a Log"},
		{"bad listener port", engine.Options{Clock: clock, Listeners: &engine.Listeners{Port: 70000}}, "bad listener ports"},
		{"bad tls-auth-clients", engine.Options{Clock: clock, Listeners: &engine.Listeners{Port: 1, TLSPort: 2, TLSAuthClients: "maybe"}}, "tls-auth-clients"},
	} {
		e, err := engine.New(tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || e != nil {
			t.Errorf("%s: engine %v, error %v, want one with %q", tc.name, e != nil, err, tc.want)
		}
	}
	if _, err := engine.New(engine.Options{Clock: clock, Config: withFile, Rewrite: func() error { return nil }}); err != nil {
		t.Errorf("rewrite with a file: %v", err)
	}
}

// TestNewOptions: what Options gives the engine is what it uses.
func TestNewOptions(t *testing.T) {
	clock := &enginetest.Clock{T: time.UnixMilli(1_000_000)}
	cfg := config.NewConfig()
	cfg.ConfigFile = "/etc/lockkv.conf"
	rewrites, shutdowns := 0, 0
	e, err := engine.New(engine.Options{
		Config:    cfg,
		Clock:     clock,
		Rewrite:   func() error { rewrites++; return nil },
		Shutdown:  func() { shutdowns++ },
		Listeners: &engine.Listeners{Port: 0, TLSPort: 6380, TLSCertFile: "c.pem", TLSKeyFile: "k.pem", TLSAuthClients: "optional", Bind: "127.0.0.1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := e.RewriteConfig(); !ran || err != nil || rewrites != 1 {
		t.Errorf("RewriteConfig: %v %v, %d rewrites", ran, err, rewrites)
	}
	if !e.Shutdown() || shutdowns != 1 {
		t.Errorf("Shutdown: %d calls", shutdowns)
	}
	for name, want := range map[string]string{"port": "0", "tls-port": "6380", "tls-cert-file": "c.pem", "tls-key-file": "k.pem", "tls-auth-clients": "optional", "bind": "127.0.0.1"} {
		if got := e.Config.String(name); got != want {
			t.Errorf("CONFIG GET %s = %q, want %q", name, got, want)
		}
	}
	if e.Cluster() != nil || e.ClusterAdmin() != nil || e.LeaderTransferer() != nil || e.NodesWithLag() != nil || e.Replicated() {
		t.Error("a standalone engine has cluster roles")
	}
	if ran, _ := enginetest.NewWith(t, engine.Options{Clock: clock}).E.RewriteConfig(); ran {
		t.Error("RewriteConfig ran without Options.Rewrite")
	}
}

// TestMemberRegistry: entries change the registry before their ops, and
// the engine's view of the cluster takes client addresses from it where
// it has them, the replication layer's (--peers) otherwise.
func TestMemberRegistry(t *testing.T) {
	fc := enginetest.NewFakeCluster("n2")
	e, err := engine.New(engine.Options{Clock: &enginetest.Clock{T: time.UnixMilli(1_000_000)}, Replication: &engine.Replication{Cluster: fc, Log: &enginetest.StubReplicator{}, Origin: 3}})
	if err != nil {
		t.Fatal(err)
	}
	e.ApplyEntry(1, 1_000_000, 1, []engine.Member{{"n1", "192.0.2.1:6379"}, {"n3", "192.0.2.3:6379"}, {"n9", "192.0.2.9:6379"}}, nil)
	e.ApplyEntry(2, 1_000_001, 2, []engine.Member{{"n9", ""}}, nil)
	if got, want := e.Members(), map[string]string{"n1": "192.0.2.1:6379", "n3": "192.0.2.3:6379"}; !maps.Equal(got, want) {
		t.Fatalf("members %v, want %v", got, want)
	}
	addrs := map[string]string{}
	for _, n := range e.Cluster().Nodes() {
		addrs[n.ID] = n.ClientAddr
	}
	if want := map[string]string{"n1": "192.0.2.1:6379", "n2": "10.0.0.2:6002", "n3": "192.0.2.3:6379"}; !maps.Equal(addrs, want) {
		t.Errorf("cluster view %v, want %v", addrs, want)
	}
	if l, ok := e.Cluster().Leader(); !ok || l.ClientAddr != "192.0.2.1:6379" {
		t.Errorf("leader %+v", l)
	}
	if self := e.Cluster().Self(); self.ClientAddr != "10.0.0.2:6002" {
		t.Errorf("self %+v", self)
	}
	// Restoring replaces the registry; a copy from Members is the
	// caller's.
	m := e.Members()
	m["n1"] = "changed"
	e.SetMembers(map[string]string{"n2": "192.0.2.2:6379", "n4": ""})
	if got, want := e.Members(), map[string]string{"n2": "192.0.2.2:6379"}; !maps.Equal(got, want) {
		t.Errorf("after SetMembers %v, want %v", got, want)
	}
	if got := e.MemberAddr("n1"); got != "" {
		t.Errorf("n1 after SetMembers: %q", got)
	}
}
