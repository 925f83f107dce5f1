package admin

import (
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/redisconf"
)

// CONFIG

var configSubs = []*engine.Spec{
	{Name: "get", Arity: -3, Flags: engine.Admin | engine.NoScript | engine.Loading | engine.Stale, NodeLocal: true, Fn: configGet}, // NodeLocal: settings are each node's own
	{Name: "set", Arity: -4, Flags: engine.Admin | engine.NoScript | engine.Loading | engine.Stale, Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Fn: configSet},
	{Name: "resetstat", Arity: 2, Flags: engine.Admin | engine.NoScript | engine.Loading | engine.Stale, Fn: configResetStat},
	{Name: "rewrite", Arity: 2, Flags: engine.Admin | engine.NoScript | engine.Loading | engine.Stale, Fn: configRewrite},
	{Name: "help", Arity: 2, Flags: engine.Loading | engine.Stale, Fn: configHelp},
}

var configCommands = []*engine.Spec{
	{Name: "config", Arity: -2, Sub: configSubs},
}

func init() { engine.Register(configCommands) }

// configGet answers every setting matching any pattern
// (config.Config.GetMatching).
func configGet(c *engine.Ctx, args [][]byte) {
	pats := make([]string, len(args)-2)
	for i, a := range args[2:] {
		pats[i] = string(a)
	}
	out := c.E.Config.GetMatching(pats)
	c.W.Map(len(out))
	for _, m := range out {
		c.W.BulkString(m.Name)
		c.W.BulkString(m.Value)
	}
}

// configSet applies every name/value pair or none
// (config.Config.SetMany), then the changes' effects on the engine.
func configSet(c *engine.Ctx, args [][]byte) {
	if len(args)%2 != 0 {
		c.Error(engine.ErrSyntax)
		return
	}
	pairs := make([][2]string, 0, (len(args)-2)/2)
	for i := 2; i < len(args); i += 2 {
		pairs = append(pairs, [2]string{string(args[i]), string(args[i+1])})
	}
	protectedOK := config.ProtectedActionAllowed(c.E.Config.EnableProtectedConfigs, c.C != nil && c.C.Local)
	names, errText := c.E.Config.SetMany(pairs, protectedOK)
	if errText != "" {
		c.Error(errText)
		return
	}
	c.E.ConfigChanged(names...)
	c.W.OK()
}

func configResetStat(c *engine.Ctx, args [][]byte) {
	c.E.ResetStats()
	c.W.OK()
}

// configRewrite is CONFIG REWRITE: the server's Rewrite (engine.Options)
// writes the file (see RewriteLines); without a config file it is Redis's
// error.
func configRewrite(c *engine.Ctx, args [][]byte) {
	cfg := c.E.Config
	ran, err := c.E.RewriteConfig()
	if !ran {
		c.Error(engine.ErrConfigRewriteNoCfg)
		return
	}
	if err != nil {
		c.E.Log().Warn("CONFIG REWRITE failed", "file", cfg.ConfigFile, "err", err)
		c.Error("ERR Rewriting config file: " + redisconf.Strerror(err))
		return
	}
	c.E.Log().Info("CONFIG REWRITE executed with success", "file", cfg.ConfigFile)
	c.W.OK()
}

var configHelpLines = []string{
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
}

func configHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "config", configHelpLines) }
