package commands

import "github.com/lockkv/lockkv/store"

// String commands.

var stringCommands = []*Spec{
	{Name: "get", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "string", "fast"}, Fn: get},
	{Name: "set", Arity: -3, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"write", "string", "slow"}, Fn: set},
}

func init() { Register(stringCommands) }

func get(c *Ctx, args [][]byte) {
	e := c.Lookup(args[1])
	if e == nil {
		c.W.Null()
		return
	}
	s, ok := e.Value.(*store.String)
	if !ok {
		c.WrongType()
		return
	}
	c.W.Bulk(s.B)
}

func set(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		c.Error(ErrSyntax)
		return
	}
	c.LookupWrite(args[1])
	c.DB.Set(string(args[1]), store.NewString(args[2]), 0, c.Now)
	c.Modified(args[1])
	c.Notify(NotifyString, "set", args[1])
	c.W.OK()
}
