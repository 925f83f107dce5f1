package replication

import (
	"bytes"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/hashicorp/raft"
)

// The cluster identity (DESIGN.md, "Cluster identity"): a random ID the
// first leader of a new cluster proposes. It travels in the Raft log (an
// entry's ClusterID) and in snapshots, so every member, and every node
// added later, learns it from the cluster itself; each node keeps it in
// its stable store, so it knows it from the first handshake after a
// restart. Every Raft connection's handshake carries it, and two nodes
// that both know an ID and disagree refuse each other.

// stableClusterIDKey is the stable store key of the cluster ID.
var stableClusterIDKey = []byte("lockkv_cluster_id")

// ClusterID is the cluster's ID in hex, "" while this node knows none (a
// new node not yet added, or a new cluster before its first leader).
func (n *Node) ClusterID() string { return hex.EncodeToString(n.clusterIDBytes()) }

func (n *Node) clusterIDBytes() []byte { return n.clusterID.Load().([]byte) }

// loadClusterID reads the ID kept in the stable store.
func (n *Node) loadClusterID(stable raft.StableStore) error {
	id, err := stable.Get(stableClusterIDKey)
	// hashicorp/raft's stores answer a missing key with nil or with an
	// error reading "not found" (raft itself tells them apart so).
	if err != nil && err.Error() != "not found" {
		return fmt.Errorf("replication: reading the cluster ID: %w", err)
	}
	if len(id) != 0 && len(id) != idSize {
		return fmt.Errorf("replication: the stored cluster ID %x is malformed", id)
	}
	if len(id) != 0 {
		n.clusterID.Store(bytes.Clone(id))
	}
	return nil
}

// adoptClusterID takes id as the cluster's ID if this node has none yet
// and stores it. It runs where entries and snapshots are applied, in log
// order, so every node takes the same one: the first in the log.
func (n *Node) adoptClusterID(id []byte) error {
	cur := n.clusterIDBytes()
	switch {
	case len(id) == 0 || bytes.Equal(cur, id):
		return nil
	case len(cur) != 0:
		return fmt.Errorf("replication: the log carries cluster ID %x, this node belongs to cluster %x", id, cur)
	}
	if err := n.stable.Set(stableClusterIDKey, id); err != nil {
		return fmt.Errorf("replication: storing the cluster ID: %w", err)
	}
	n.clusterID.Store(bytes.Clone(id))
	n.log.Info("cluster ID learned", "node", n.cfg.NodeID, "cluster_id", hex.EncodeToString(id))
	return nil
}

// proposeClusterIDIfNone makes a leader that knows no cluster ID (after its
// barrier: none was committed before) propose a new one (command
// goroutine).
func (n *Node) proposeClusterIDIfNone() {
	if len(n.clusterIDBytes()) != 0 {
		return
	}
	id := make([]byte, idSize)
	crand.Read(id)
	n.mu.Lock()
	n.queueID = id
	n.mu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// hello is what this node says about itself in a handshake.
func (n *Node) hello() hello {
	h := hello{clusterID: n.clusterIDBytes(), nodeID: n.cfg.NodeID, addr: n.cfg.RaftAdvertise}
	if n.hasState.Load() {
		h.flags |= helloHasState
	}
	return h
}
