package replication

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/host"
)

// A *Config is what a lockkv.Config's Cluster holds: the server calls
// Validate in lockkv.NewServer and NewNode in Start.

// Validate reports the settings no node could start with (what New
// checks before it reads any file).
func (c *Config) Validate() error {
	if c == nil {
		return errors.New("replication: a nil *Config")
	}
	if c.NodeID == "" {
		return errors.New("replication: a node ID is required")
	}
	if !engine.ValidNodeID(c.NodeID) {
		return fmt.Errorf("replication: bad node ID %q: %s", c.NodeID, engine.NodeIDRule)
	}
	if c.RaftAddr == "" && c.Transport == nil {
		return errors.New("replication: a Raft address is required")
	}
	adv := c.RaftAdvertise
	if adv == "" {
		adv = c.RaftAddr
	}
	if len(adv) > 255 {
		return errors.New("replication: the Raft address must be at most 255 bytes")
	}
	if c.Bootstrap && c.Join != "" {
		return errors.New("replication: --bootstrap forms a new cluster and --join joins one: give one of them")
	}
	if c.Bootstrap && len(c.Peers) > 0 && !slices.ContainsFunc(c.Peers, func(p Peer) bool { return p.ID == c.NodeID }) {
		return fmt.Errorf("replication: --peers must include this node (%s)", c.NodeID)
	}
	hb := c.HeartbeatTimeout
	if hb <= 0 {
		hb = time.Second
	}
	if c.LeaderLease < 0 || c.LeaderLease > hb {
		return fmt.Errorf("replication: the leader lease (%v) must be positive and at most the heartbeat timeout (%v)", c.LeaderLease, hb)
	}
	switch c.LogStore {
	case "", "wal", "bolt":
	default:
		return fmt.Errorf("replication: unknown log store %q (want wal or bolt)", c.LogStore)
	}
	return nil
}

// NewNode makes the node for the server h describes: what c leaves unset
// of Clock, Logger, Password, ClientTLS and Stalled comes from h.
func (c *Config) NewNode(h host.Server) (host.Node, error) {
	rc := *c
	if rc.Clock == nil {
		rc.Clock = h.Clock
	}
	if rc.Logger == nil {
		rc.Logger = h.Logger
	}
	if rc.Password == "" {
		rc.Password = h.Password
	}
	if rc.ClientTLS == nil {
		rc.ClientTLS = h.ClientTLS
	}
	if rc.Stalled == nil {
		rc.Stalled = h.Stalled
	}
	n, err := New(rc, h.Run)
	if err != nil {
		return nil, err
	}
	return n, nil
}
