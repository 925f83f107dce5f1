package engine

import (
	"crypto/subtle"

	"github.com/lockkv/lockkv/internal/buildinfo"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// Connection commands: PING ECHO QUIT SELECT HELLO AUTH RESET.

var connectionCommands = []*Spec{
	{Name: "ping", Arity: -1, Flags: Fast | Sentinel, ACL: []string{"connection"}, Subscribed: true, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: ping},
	{Name: "echo", Arity: 2, Flags: Loading | Stale | Fast, ACL: []string{"connection"}, Fn: echo},
	{Name: "quit", Arity: -1, Flags: AllowBusy | NoAuth | Fast | NoScript | Loading | Stale, ACL: []string{"connection"}, Subscribed: true, Unqueued: true, OOMInMulti: true, Fn: quit},
	{Name: "select", Arity: 2, Flags: Loading | Stale | Fast, ACL: []string{"connection"}, Fwd: FwdSelect, Fn: selectDB},
	{Name: "hello", Arity: -1, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: []string{"connection"}, Redact: redactHello, NodeLocal: true, Fwd: FwdHello, Fn: hello}, // NodeLocal: the connection's id and this node's role
	{Name: "auth", Arity: -2, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: []string{"connection"}, Redact: redactAuth, Fn: auth},
	{Name: "reset", Arity: 1, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: []string{"connection"}, Subscribed: true, Unqueued: true, OOMInMulti: true, Fn: reset},
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
	id, ok := c.ParseDBIndex(args[1]) // getIntFromObjectOrReply, then the range
	if !ok {
		return
	}
	c.C.DB = id
	c.DB = c.E.DBs[id]
	c.W.OK()
}

// connection helpers

// authAs checks user/pass against the only user lockkv has, "default",
// whose password is requirepass (none: any password, as Redis's nopass).
func (e *Engine) authAs(user, pass []byte) bool {
	if string(user) != "default" {
		return false
	}
	rp := e.Config.RequirePass
	if rp == "" {
		return true
	}
	return subtle.ConstantTimeCompare(pass, []byte(rp)) == 1
}

// SetAuthenticated records cl's authentication state and tells its
// connection, whose reader applies tighter limits before AUTH.
func (e *Engine) SetAuthenticated(cl *Client, ok bool) {
	cl.Authenticated = ok
	if cl.Conn != nil {
		cl.Conn.SetAuthenticated(!e.authRequired(cl))
	}
}

// authRequired is Redis's authRequired: the client has not authenticated
// and the default user has a password. Clearing requirepass lets clients
// that never authenticated in; setting it again shuts them out.
func (e *Engine) authRequired(cl *Client) bool {
	return !cl.Authenticated && e.Config.RequirePass != ""
}

// refreshAuth tells every connection its client's state after
// requirepass changed.
func (e *Engine) refreshAuth() {
	for _, cl := range e.clients {
		e.SetAuthenticated(cl, cl.Authenticated)
	}
}

// validClientName reports whether name is a valid CLIENT SETNAME argument:
// printable ASCII without spaces.
func validClientName(name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

// setClientName sets cl's name, replying with the error Redis gives for an
// invalid one; an empty name clears it.
func (c *Ctx) setClientName(name []byte) bool {
	if !validClientName(name) {
		c.Error(ErrClientName)
		return false
	}
	c.C.Name = string(name)
	return true
}

func hello(c *Ctx, args [][]byte) {
	ver := int64(0)
	next := 1
	if len(args) >= 2 {
		v, ok := redisnum.ParseInt(args[1])
		if !ok {
			c.Error(ErrHelloProtoNotInt)
			return
		}
		if v < 2 || v > 3 {
			c.Error(ErrNoProto)
			return
		}
		ver = v
		next = 2
	}
	var user, pass, name []byte
	haveAuth, haveName := false, false
	for j := next; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case cstr.EqualFold(args[j], "auth") && more >= 2:
			user, pass, haveAuth = args[j+1], args[j+2], true
			j += 2
		case cstr.EqualFold(args[j], "setname") && more >= 1:
			name, haveName = args[j+1], true
			j++
		default:
			c.Error(ErrHelloOption(args[j]))
			return
		}
	}
	if haveAuth {
		if !c.E.authAs(user, pass) {
			c.Error(ErrWrongPass)
			return
		}
		c.E.SetAuthenticated(c.C, true)
	}
	if !c.C.Authenticated { // Redis checks the flag itself here
		c.Error(ErrHelloNoAuth)
		return
	}
	if haveName && !c.setClientName(name) {
		return
	}
	if ver != 0 {
		c.C.W.Proto = int(ver)
		c.W.Proto = int(ver)
	}
	c.W.Map(7)
	c.W.BulkString("server")
	c.W.BulkString("redis")
	c.W.BulkString("version")
	c.W.BulkString(buildinfo.RedisVersion)
	c.W.BulkString("proto")
	c.W.Int(int64(c.C.W.Proto))
	c.W.BulkString("id")
	c.W.Int(c.C.ID)
	c.W.BulkString("mode")
	c.W.BulkString(c.E.Mode())
	c.W.BulkString("role")
	c.W.BulkString(c.E.helloRole(c.Now))
	c.W.BulkString("modules")
	c.W.Array(0)
}

func auth(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 2 {
		if c.E.Config.RequirePass == "" {
			c.Error(ErrAuthNoPassword)
			return
		}
	} else {
		user, pass = args[1], args[2]
	}
	if !c.E.authAs(user, pass) {
		c.Error(ErrWrongPass)
		return
	}
	c.E.SetAuthenticated(c.C, true)
	c.W.OK()
}

// reset is Redis's RESET: the connection returns to the state of a new
// one (clearClientConnectionState), keeping its ID.
func reset(c *Ctx, args [][]byte) {
	e, cl := c.E, c.C
	// RESET turns CLIENT REPLY OFF off before it answers, but a SKIP in
	// effect still skips its reply (clearClientConnectionState leaves
	// CLIENT_REPLY_SKIP to resetClient).
	skip := cl.ReplyMode == ReplySkip
	e.ResetClient(cl)
	c.DB = e.DBs[0]
	if !skip {
		c.W = e.Writer(cl)
	}
	c.W.Status("RESET")
}

// ResetClient clears cl's connection state as RESET does.
func (e *Engine) ResetClient(cl *Client) {
	e.monitorFreeClient(cl)
	cl.monitor = false
	e.DiscardTransaction(cl)
	cl.DB = 0
	cl.W.Proto = 2
	cl.Name = ""
	e.trackingFreeClient(cl)
	cl.track = trackClient{}
	e.pubsubFreeClient(cl)
	cl.sub = subClient{}
	cl.NoTouch = false
	cl.ReplyMode = ReplyOn
	cl.replySkipNext = false
	cl.Readonly = false
	e.SetAuthenticated(cl, e.Config.RequirePass == "")
}
