package commands

// Connection commands: PING ECHO QUIT SELECT.

var connectionCommands = []*Spec{
	{Name: "ping", Arity: -1, Flags: Fast | Sentinel, ACL: []string{"fast", "connection"}, Fn: ping},
	{Name: "echo", Arity: 2, Flags: Fast, ACL: []string{"fast", "connection"}, Fn: echo},
	{Name: "quit", Arity: -1, Flags: AllowBusy | NoAuth | Fast | NoScript | Loading | Stale, ACL: []string{"fast", "connection"}, Fn: quit},
	{Name: "select", Arity: 2, Flags: Loading | Stale | Fast, ACL: []string{"fast", "connection"}, Fn: selectDB},
}

func init() { Register(connectionCommands) }

func ping(c *Ctx, args [][]byte) {
	if len(args) > 2 {
		c.Error(ErrWrongArgs("ping"))
		return
	}
	if c.C.sub.count() > 0 && c.C.W.Proto == 2 && !c.InScript {
		c.W.Array(2)
		c.W.BulkString("pong")
		if len(args) == 2 {
			c.W.Bulk(args[1])
		} else {
			c.W.BulkString("")
		}
		return
	}
	if len(args) == 2 {
		c.W.Bulk(args[1])
		return
	}
	c.W.Status("PONG")
}

func echo(c *Ctx, args [][]byte) { c.W.Bulk(args[1]) }

func quit(c *Ctx, args [][]byte) {
	c.W.OK()
	c.C.CloseAfterReply = true
}

func selectDB(c *Ctx, args [][]byte) {
	n, ok := ParseInt(args[1])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if n < 0 || n >= int64(len(c.E.DBs)) {
		c.Error(ErrDBIndex)
		return
	}
	c.C.DB = int(n)
	c.DB = c.E.DBs[n]
	c.W.OK()
}
