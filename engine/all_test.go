package engine_test

// The command families outside the engine register into its table from
// their init functions; the engine's tests (internal ones included: they
// share this test binary) run with the whole table, as a server has it.
import (
	_ "github.com/lockkv/lockkv/admin"
	_ "github.com/lockkv/lockkv/commands"
)
