package replication_test

// The command families register into the engine's table from their init
// functions; the engines these tests build (internal tests included: they
// share this test binary) have the whole table, as a server's has.
import (
	_ "github.com/lockkv/lockkv/admin"
	_ "github.com/lockkv/lockkv/commands"
)
