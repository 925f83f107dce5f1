package lockkv

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/metrics"
	"github.com/lockkv/lockkv/replication"
)

// TestNewServerRefusesBadSettings: every setting no server could start
// with is an error from NewServer, naming what is wrong; the choices it
// has are accepted.
func TestNewServerRefusesBadSettings(t *testing.T) {
	cert, key := "cert.pem", "key.pem" // NewServer reads no file: Start does
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{ReadMode: "linearisable"}, `bad read mode "linearisable"`},
		{Config{ReadMode: "Lease"}, `bad read mode "Lease"`},
		{Config{ProtectedMode: "maybe"}, `bad protected-mode "maybe"`},
		{Config{EnableDebugCommand: "sometimes"}, `bad enable-debug-command "sometimes"`},
		{Config{EnableProtectedConfigs: "always"}, `bad enable-protected-configs "always"`},
		{Config{Addr: "localhost"}, `bad address "localhost"`},
		{Config{Addr: "127.0.0.1:70000"}, `bad address "127.0.0.1:70000"`},
		{Config{Addr: "127.0.0.1:redis"}, `bad address "127.0.0.1:redis"`},
		{Config{Databases: -1}, "bad Databases -1"},
		{Config{SlowRequestThreshold: -time.Millisecond}, "SlowRequestThreshold -1ms is negative"},
		{Config{MaxClients: -5}, "bad MaxClients -5"},
		{Config{TLSCertFile: cert}, "TLS needs both a certificate file and a key file"},
		{Config{TLSKeyFile: key}, "TLS needs both a certificate file and a key file"},
		{Config{TLSAddr: "127.0.0.1:0"}, "need TLSCertFile and TLSKeyFile"},
		{Config{TLSCACertFile: cert}, "need TLSCertFile and TLSKeyFile"},
		{Config{TLSAuthClients: "yes"}, "need TLSCertFile and TLSKeyFile"},
		{Config{TLSCertFile: cert, TLSKeyFile: key, TLSAuthClients: "maybe"}, `bad tls-auth-clients "maybe"`},
		{Config{TLSCertFile: cert, TLSKeyFile: key, TLSAddr: "::1"}, `bad TLS address "::1"`},
		{Config{TLSOnly: true}, "TLSOnly without a TLS certificate"},
		{Config{TLSOnly: true, Addr: "127.0.0.1:0", TLSCertFile: cert, TLSKeyFile: key}, "TLSOnly serves no plain TCP"},
		{Config{Settings: []Setting{{Name: "maxmemory", Args: []string{"lots"}}}}, "maxmemory lots"},
		{Config{Cluster: &replication.Config{RaftAddr: "127.0.0.1:0"}}, "a node ID is required"},
		{Config{Cluster: &replication.Config{NodeID: "n1"}}, "a Raft address is required"},
		{Config{Cluster: &replication.Config{NodeID: "n1", RaftAddr: "127.0.0.1:0", Bootstrap: true, Join: "127.0.0.1:1"}}, "give one of them"},
		{Config{Cluster: &replication.Config{NodeID: "n1", RaftAddr: "127.0.0.1:0", LogStore: "sqlite"}}, `unknown log store "sqlite"`},
		{Config{Cluster: &replication.Config{NodeID: "n1", RaftAddr: "127.0.0.1:0", HeartbeatTimeout: time.Second, LeaderLease: 2 * time.Second}}, "the leader lease (2s) must be positive and at most the heartbeat timeout (1s)"},
		{Config{Cluster: &replication.Config{NodeID: "n1", RaftAddr: "127.0.0.1:0", LeaderLease: -time.Second}}, "the leader lease (-1s) must be positive"},
		{Config{Cluster: (*replication.Config)(nil)}, "a nil *Config"},
		{Config{Metrics: &metrics.Config{Addr: "9100"}}, `bad metrics address "9100"`},
		{Config{Metrics: (*metrics.Config)(nil)}, "a nil *metrics.Config"},
	} {
		s, err := NewServer(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewServer(%+v) = %v, %v; want an error with %q", c.cfg, s, err, c.want)
		}
	}

	for _, cfg := range []Config{
		{},
		{ReadMode: "linearizable"}, {ReadMode: "lease"}, {ReadMode: "stale"},
		{ProtectedMode: "no", EnableDebugCommand: "local", EnableProtectedConfigs: "yes"},
		{Addr: ":0"}, {Addr: "[::1]:0"}, {Databases: 1, MaxClients: 1},
		{TLSCertFile: cert, TLSKeyFile: key, TLSAuthClients: "optional", TLSAddr: "127.0.0.1:0"},
		{TLSCertFile: cert, TLSKeyFile: key, TLSOnly: true},
		{Cluster: &replication.Config{NodeID: "n1", RaftAddr: "127.0.0.1:0", Bootstrap: true}},
		{Metrics: &metrics.Config{}},
	} {
		if _, err := NewServer(cfg); err != nil {
			t.Errorf("NewServer(%+v): %v", cfg, err)
		}
	}
}
