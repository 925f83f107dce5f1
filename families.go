package lockkv

// The command families register into the engine's command table from
// their packages' init functions: a server has them because this package
// imports them.
import (
	_ "github.com/lockkv/lockkv/admin"
	_ "github.com/lockkv/lockkv/commands"
)
