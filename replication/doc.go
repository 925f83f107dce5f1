// Package replication makes lockkv a Raft cluster (github.com/hashicorp/raft
// with github.com/hashicorp/raft-boltdb): every write command, MULTI/EXEC
// block and script invocation becomes a log entry, and the leader replies
// only after the entry is committed and applied.
package replication

import (
	_ "github.com/hashicorp/raft"
	_ "github.com/hashicorp/raft-boltdb/v2"
)
