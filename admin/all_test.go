package admin_test

// The data-type families register into the engine's table from their
// init functions; this package's tests (internal ones included: they
// share this test binary) run with the whole table, as a server has it.
import (
	_ "github.com/lockkv/lockkv/commands"
)
