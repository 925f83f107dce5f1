package engine

import (
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// CLIENT: the container and its subcommands; the handlers of TRACKING,
// CACHING, TRACKINGINFO and GETREDIR live with the tracking code.
//
// SETINFO and NO-TOUCH are Redis 7.2's (7.0.15 answers them with the
// unknown-subcommand error): lock clients send CLIENT SETINFO on every
// connection, so lockkv implements them as 7.2 does, and CLIENT LIST shows
// 7.2's lib-name and lib-ver fields and T flag. CLIENT HELP keeps 7.0.15's
// text.

var clientSubs = []*Spec{
	{Name: "id", Arity: 2, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, NodeLocal: true, Fn: clientID}, // NodeLocal: a connection of this node
	{Name: "setname", Arity: 3, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientSetName},
	{Name: "getname", Arity: 2, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, NodeLocal: true, Fn: clientGetName},                                               // NodeLocal: a connection of this node
	{Name: "list", Arity: -2, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output"}, NodeLocal: true, Fn: clientList}, // NodeLocal: this node's connections
	{Name: "info", Arity: 2, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output"}, NodeLocal: true, Fn: clientInfo},          // NodeLocal: a connection of this node
	{Name: "kill", Arity: -3, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"connection"}, NodeLocal: true, Fn: clientKill},                                            // NodeLocal: this node's connections
	{Name: "setinfo", Arity: 4, Flags: NoScript | Loading | Stale | Sentinel, ACL: []string{"connection"}, Origin: OriginRedis72, Doc: docClientSetInfo, Fn: clientSetInfo},
	{Name: "no-touch", Arity: 3, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, Origin: OriginRedis72, Doc: docClientNoTouch, Fn: clientNoTouch},
	{Name: "no-evict", Arity: 3, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientNoEvict},
	{Name: "reply", Arity: 3, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientReply},
	{Name: "pause", Arity: -3, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientPause},
	{Name: "unpause", Arity: 2, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientUnpause},
	{Name: "unblock", Arity: -3, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"connection"}, NodeLocal: true, Fn: clientUnblock}, // NodeLocal: this node's connections
	{Name: "help", Arity: 2, Flags: Loading | Stale, ACL: []string{"connection"}, Fn: clientHelp},
	// Tracking (tracking.go).
	{Name: "tracking", Arity: -3, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientTracking},
	{Name: "caching", Arity: 3, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, Fn: clientCaching},
	{Name: "trackinginfo", Arity: 2, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, NodeLocal: true, Fn: clientTrackingInfo}, // NodeLocal: a connection of this node
	{Name: "getredir", Arity: 2, Flags: NoScript | Loading | Stale, ACL: []string{"connection"}, NodeLocal: true, Fn: clientGetRedir},         // NodeLocal: a connection of this node
}

var clientCommands = []*Spec{
	{Name: "client", Arity: -2, KeepCaching: true, Sub: clientSubs},
}

func init() { Register(clientCommands) }

// client helpers

// Client pause types, in Redis's order (a pause only ever upgrades).
const (
	pauseOff = iota
	pauseWrite
	pauseAll
)

// serverState is the engine state of the server and connection commands.
type serverState struct {
	pause     int   // pauseOff, pauseWrite or pauseAll
	pauseEnd  int64 // Unix ms
	postponed []*Client
	resume    bool // unpaused: run the postponed clients after this command

	// Shutdown, when set, stops the server (SHUTDOWN); it is called on
	// the command goroutine and must not wait for it.
	shutdown func()
	// cronRing holds the connected clients clientsCron visits in turn
	// (freed ones are dropped when met); cronPos is where it goes on.
	cronRing []*Client
	cronPos  int
	// nextOutputCheck is when Cron next checks every client's output
	// buffer limits (Unix ms).
	nextOutputCheck int64
	// waits are the clients blocked in WAIT.
	waits []waitEntry
	// errorStats counts error replies by code (INFO errorstats).
	errorStats map[string]int64
	// cmdStats counts calls per command, indexed by Spec.idx.
	cmdStats []cmdStat
	// errPrev is TotalErrorReplies when the last command started or was
	// accounted for (see countCall).
	errPrev int64
}

// pausedFor reports whether spec must wait for the end of CLIENT PAUSE
// (Redis's blockPostponeClient): everything under ALL, commands that may
// write under WRITE. Clients already waiting are queued in order.
func (e *Engine) pausedFor(cl *Client, spec *Spec) bool {
	if e.NowMs() >= e.srv.pauseEnd {
		e.unpause()
		return false
	}
	if e.srv.pause == pauseWrite && !mayWrite(cl, spec) {
		return false
	}
	e.srv.postponed = append(e.srv.postponed, cl)
	return true
}

func mayWrite(cl *Client, spec *Spec) bool {
	if spec.Flags&(Write|MayReplicate) != 0 {
		return true
	}
	if spec.Txn == TxnExec {
		// The flags of what it queued, subcommands resolved, as Redis
		// accumulates mstate.cmd_flags.
		for _, q := range cl.multi.queue {
			if s := LookupArgs(q); s != nil && s.Flags&(Write|MayReplicate) != 0 {
				return true
			}
		}
	}
	return false
}

// unpause ends a client pause; the postponed clients run after the
// current command.
func (e *Engine) unpause() {
	e.srv.pause = pauseOff
	e.srv.pauseEnd = 0
	if len(e.srv.postponed) > 0 {
		e.srv.resume = true
	}
}

// resumePaused runs the commands CLIENT PAUSE held, client by client in
// the order they arrived.
func (e *Engine) resumePaused() {
	e.srv.resume = false
	list := e.srv.postponed
	e.srv.postponed = nil
	for _, cl := range list {
		if cl.freed || cl.park != parkPaused {
			continue
		}
		e.unpark(cl, parkPaused)
		e.runPending(cl)
	}
}

// pauseDeadline is the pause's end for NextWakeup, or 0.
func (e *Engine) pauseDeadline() int64 {
	at := e.waitDeadline()
	if e.srv.pause != pauseOff && (at == 0 || e.srv.pauseEnd < at) {
		at = e.srv.pauseEnd
	}
	return at
}

// serverCron ends an expired pause and closes idle clients (timeout).
func (e *Engine) serverCron(now int64) {
	if e.srv.pause != pauseOff && now >= e.srv.pauseEnd {
		e.unpause()
	}
	if e.srv.resume {
		e.resumePaused()
	}
	e.waitRecheck() // a WAITAOF for a local copy fails once appendonly is off
	e.waitTimeouts(now)
	e.clientsCron(now)
}

// clientsCron is Redis's: each call visits clients/hz of the clients in
// turn (at least 5), so each is looked at about once a second without a
// pass over all of them, and closes those idle past timeout. Clients
// freed since are dropped from the ring as they are met, uncounted.
func (e *Engine) clientsCron(now int64) {
	ring := e.srv.cronRing
	n := len(e.clients)
	iterations := n / max(e.Config.Hz, 1)
	if iterations < 5 {
		iterations = min(n, 5)
	}
	for len(ring) > 0 {
		if e.srv.cronPos >= len(ring) {
			e.srv.cronPos = 0
		}
		i := e.srv.cronPos
		cl := ring[i]
		if cl.freed {
			last := len(ring) - 1
			ring[i], ring[last] = ring[last], nil
			ring = ring[:last]
			continue
		}
		if iterations == 0 {
			break
		}
		e.srv.cronPos++
		iterations--
		e.clientTimedOut(cl, now)
	}
	e.srv.cronRing = ring
}

// clientTimedOut closes cl if it has been idle past timeout, as
// clientsCronHandleTimeout: whole seconds, as Redis's clock counts them;
// never a parked client (blocked, WAIT, CLIENT PAUSE, its write's commit,
// a read waiting for its leadership round...), a subscriber or a monitor.
func (e *Engine) clientTimedOut(cl *Client, now int64) bool {
	t := int64(e.Config.Timeout)
	if t <= 0 || cl.Conn == nil || cl.park != parkNone || len(cl.queue) > 0 || cl.sub.count() > 0 || cl.monitor {
		return false
	}
	if now/1000-cl.LastInteraction/1000 <= t {
		return false
	}
	// Output it has not read is dropped, as freeClient drops it: a client
	// that never reads must not keep its memory and socket.
	cl.Conn.Abort()
	e.FreeClient(cl)
	return true
}

// clientFlags renders the flags field of CLIENT LIST.
func clientFlags(cl *Client) string {
	var b []byte
	if cl.monitor {
		b = append(b, 'O')
	}
	if cl.sub.count() > 0 {
		b = append(b, 'P')
	}
	if cl.multi.active {
		b = append(b, 'x')
	}
	if cl.held() {
		b = append(b, 'b')
	}
	if cl.Tracking() {
		b = append(b, 't')
	}
	if cl.TrackingBrokenRedirect() {
		b = append(b, 'R')
	}
	if cl.TrackingBCast() {
		b = append(b, 'B')
	}
	if cl.DirtyCAS() {
		b = append(b, 'd')
	}
	if cl.CloseAfterReply {
		b = append(b, 'c')
	}
	if cl.Readonly {
		b = append(b, 'r')
	}
	if cl.NoEvict {
		b = append(b, 'e')
	}
	if cl.NoTouch {
		b = append(b, 'T') // 7.2
	}
	if len(b) == 0 {
		return "N"
	}
	return string(b)
}

// appendClientInfo appends one CLIENT LIST line (without the newline), in
// Redis 7.0's field order followed by 7.2's lib-name and lib-ver. lockkv
// has no file descriptors: fd carries a plausible value. The memory fields
// map lockkv's buffers onto Redis's (appendMemFields); argvMem is the size
// of the arguments of the command cl is running, 0 for a client between
// commands.
func (e *Engine) appendClientInfo(b []byte, cl *Client, now, argvMem int64) []byte {
	field := func(name string) { b = append(b, ' '); b = append(b, name...); b = append(b, '=') }
	num := func(name string, n int64) { field(name); b = strconv.AppendInt(b, n, 10) }
	b = append(b, "id="...)
	b = strconv.AppendInt(b, cl.ID, 10)
	field("addr")
	if cl.Conn != nil {
		b = append(b, cl.Conn.RemoteAddr()...)
	}
	field("laddr")
	if cl.Conn != nil {
		b = append(b, cl.Conn.LocalAddr()...)
	}
	num("fd", 8)
	field("name")
	b = append(b, cl.Name...)
	// Redis keeps these times in whole seconds (server.unixtime): age and
	// idle go up at each second boundary, not 1000 ms after the event.
	num("age", now/1000-cl.Created/1000)
	num("idle", now/1000-cl.LastInteraction/1000)
	field("flags")
	b = append(b, clientFlags(cl)...)
	num("db", int64(cl.DB))
	num("sub", int64(len(cl.sub.channels)))
	num("psub", int64(len(cl.sub.patterns)))
	num("ssub", int64(len(cl.sub.shard)))
	multi := int64(-1)
	if cl.multi.active {
		multi = int64(len(cl.multi.queue))
	}
	num("multi", multi)
	b = appendMemFields(b, cl, argvMem)
	field("events")
	b = append(b, 'r')
	field("cmd")
	if cl.lastCmd == nil {
		b = append(b, "NULL"...)
	} else {
		b = append(b, cl.lastCmd.FullName()...)
	}
	field("user")
	b = append(b, "default"...)
	num("redir", cl.TrackingRedirect())
	num("resp", int64(cl.W.Proto))
	field("lib-name")
	b = append(b, cl.LibName...)
	field("lib-ver")
	b = append(b, cl.LibVer...)
	return b
}

// clientType classifies a client for TYPE filters.
func clientType(cl *Client) string {
	if cl.sub.count() > 0 {
		return "pubsub"
	}
	return "normal"
}

// parseClientType validates a TYPE argument; replica/slave and master are
// valid types that never match in lockkv.
func parseClientType(b []byte) (string, bool) {
	switch strings.ToLower(string(b)) {
	case "normal":
		return "normal", true
	case "pubsub":
		return "pubsub", true
	case "master":
		return "master", true
	case "replica", "slave":
		return "replica", true
	}
	return "", false
}

// sortedClients returns the connected clients in ID order.
func (e *Engine) sortedClients() []*Client {
	out := make([]*Client, 0, len(e.clients))
	for _, cl := range e.clients {
		out = append(out, cl)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ID < out[j-1].ID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// ReplyHelp writes a HELP reply as Redis's addReplyHelp does: the header
// (container upper-cased), lines, and HELP's own entry.
func ReplyHelp(c *Ctx, container string, lines []string) {
	c.W.Array(len(lines) + 3)
	c.W.Status(strings.ToUpper(container) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.W.Status(l)
	}
	c.W.Status("HELP")
	c.W.Status("    Prints this help.")
}

// CLIENT subcommands

func clientID(c *Ctx, args [][]byte) { c.W.Int(c.C.ID) }

func clientSetName(c *Ctx, args [][]byte) {
	if c.setClientName(args[2]) {
		c.W.OK()
	}
}

func clientGetName(c *Ctx, args [][]byte) {
	if c.C.Name == "" {
		c.W.Null()
		return
	}
	c.W.BulkString(c.C.Name)
}

func clientList(c *Ctx, args [][]byte) {
	var typ string
	var ids map[int64]bool
	switch {
	case len(args) == 2:
	case len(args) == 4 && cstr.EqualFold(args[2], "type"):
		t, ok := parseClientType(args[3])
		if !ok {
			c.Error(ErrUnknownClientType(args[3]))
			return
		}
		typ = t
	case len(args) > 3 && cstr.EqualFold(args[2], "id"):
		ids = map[int64]bool{}
		for _, a := range args[3:] {
			id, ok := redisnum.ParseInt(a)
			if !ok {
				c.Error(ErrInvalidClientID)
				return
			}
			ids[id] = true
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	now := c.Now
	var b []byte
	for _, cl := range c.E.sortedClients() {
		if typ != "" && clientType(cl) != typ {
			continue
		}
		if ids != nil && !ids[cl.ID] {
			continue
		}
		var argvMem int64
		if cl == c.C {
			argvMem = argsLen(args)
		}
		b = c.E.appendClientInfo(b, cl, c.clientNow(cl, now), argvMem)
		b = append(b, '\n')
	}
	c.W.Verbatim(string(b), "txt")
}

// argsLen is Redis's argv_len_sum: the bytes of a command's arguments.
func argsLen(args [][]byte) int64 {
	var n int64
	for _, a := range args {
		n += int64(len(a))
	}
	return n
}

// clientNow is the time CLIENT LIST computes ages with; the calling client
// shows the command it is running.
func (c *Ctx) clientNow(cl *Client, now int64) int64 {
	if cl == c.C {
		cl.lastCmd = c.Spec
		cl.LastInteraction = now
	}
	return now
}

func clientInfo(c *Ctx, args [][]byte) {
	b := c.E.appendClientInfo(nil, c.C, c.clientNow(c.C, c.Now), argsLen(args))
	b = append(b, '\n')
	c.W.Verbatim(string(b), "txt")
}

func clientKill(c *Ctx, args [][]byte) {
	e := c.E
	if len(args) == 3 {
		// Old form: CLIENT KILL addr.
		for _, cl := range e.sortedClients() {
			if cl.Conn != nil && cl.Conn.RemoteAddr() == string(args[2]) {
				c.W.OK()
				e.killClient(c, cl)
				return
			}
		}
		c.Error(ErrNoSuchClient)
		return
	}
	var (
		id          int64
		typ         string
		addr, laddr string
		haveAddr    bool
		haveLaddr   bool
		skipMe      = true
	)
	if len(args)%2 != 0 {
		c.Error(ErrSyntax)
		return
	}
	for i := 2; i < len(args); i += 2 {
		opt, val := args[i], args[i+1]
		switch {
		case cstr.EqualFold(opt, "id"):
			n, ok := redisnum.ParseInt(val)
			if !ok || n <= 0 {
				c.Error(ErrClientIDPositive)
				return
			}
			id = n
		case cstr.EqualFold(opt, "type"):
			t, ok := parseClientType(val)
			if !ok {
				c.Error(ErrUnknownClientType(val))
				return
			}
			typ = t
		case cstr.EqualFold(opt, "addr"):
			addr, haveAddr = string(val), true
		case cstr.EqualFold(opt, "laddr"):
			laddr, haveLaddr = string(val), true
		case cstr.EqualFold(opt, "user"):
			if string(val) != "default" {
				c.Error(ErrNoSuchUser(val))
				return
			}
		case cstr.EqualFold(opt, "skipme"):
			switch {
			case cstr.EqualFold(val, "yes"):
				skipMe = true
			case cstr.EqualFold(val, "no"):
				skipMe = false
			default:
				c.Error(ErrSyntax)
				return
			}
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	var victims []*Client
	for _, cl := range e.sortedClients() {
		if cl.Conn == nil {
			continue
		}
		if id != 0 && cl.ID != id {
			continue
		}
		if typ != "" && clientType(cl) != typ {
			continue
		}
		if haveAddr && cl.Conn.RemoteAddr() != addr {
			continue
		}
		if haveLaddr && cl.Conn.LocalAddr() != laddr {
			continue
		}
		if skipMe && cl == c.C {
			continue
		}
		victims = append(victims, cl)
	}
	c.W.Int(int64(len(victims)))
	for _, cl := range victims {
		e.killClient(c, cl)
	}
}

// killClient closes cl: at once, dropping output it has not read (as
// Redis's freeClient), or after this reply when it is the calling client.
func (e *Engine) killClient(c *Ctx, cl *Client) {
	if cl == c.C {
		cl.CloseAfterReply = true
		return
	}
	cl.Conn.Abort()
	e.FreeClient(cl)
}

// clientSetInfo is Redis 7.2's clientSetinfoCommand. Redis compares and
// validates the arguments as C strings, so a NUL byte ends them: what
// follows one is never shown, and an empty value clears the attribute.
func clientSetInfo(c *Ctx, args [][]byte) {
	attr, val := cstr.CString(args[2]), cstr.CString(args[3])
	var dst *string
	switch {
	case cstr.EqualFold(attr, "lib-name"):
		dst = &c.C.LibName
	case cstr.EqualFold(attr, "lib-ver"):
		dst = &c.C.LibVer
	default:
		c.Error(ErrUnrecognizedOption(attr))
		return
	}
	for _, b := range val {
		if b < '!' || b > '~' {
			c.Error(ErrClientAttr(attr))
			return
		}
	}
	*dst = string(val)
	c.W.OK()
}

// clientNoTouch is Redis 7.2's CLIENT NO-TOUCH: while on, the client's
// commands leave the keys' access time alone, except TOUCH (Ctx.Touch).
func clientNoTouch(c *Ctx, args [][]byte) {
	switch {
	case cstr.EqualFold(args[2], "on"):
		c.C.NoTouch = true
	case cstr.EqualFold(args[2], "off"):
		c.C.NoTouch = false
	default:
		c.Error(ErrSyntax)
		return
	}
	c.W.OK()
}

func clientNoEvict(c *Ctx, args [][]byte) {
	switch {
	case cstr.EqualFold(args[2], "on"):
		c.C.NoEvict = true
	case cstr.EqualFold(args[2], "off"):
		c.C.NoEvict = false
	default:
		c.Error(ErrSyntax)
		return
	}
	c.W.OK()
}

func clientReply(c *Ctx, args [][]byte) {
	switch {
	case cstr.EqualFold(args[2], "on"):
		c.C.ReplyMode = ReplyOn
		c.W = c.E.Writer(c.C)
		c.W.OK()
	case cstr.EqualFold(args[2], "off"):
		c.C.ReplyMode = ReplyOff
	case cstr.EqualFold(args[2], "skip"):
		if c.C.ReplyMode != ReplyOff {
			c.C.replySkipNext = true
		}
	default:
		c.Error(ErrSyntax)
	}
}

func clientPause(c *Ctx, args [][]byte) {
	ms, ok := c.timeoutMillis(args[2])
	if !ok {
		return
	}
	typ := pauseAll
	if len(args) == 4 {
		switch {
		case cstr.EqualFold(args[3], "write"):
			typ = pauseWrite
		case cstr.EqualFold(args[3], "all"):
		default:
			c.Error(ErrPauseMode)
			return
		}
	} else if len(args) > 4 {
		c.Error(ErrSubcommandSyntax("client", args[1]))
		return
	}
	end := int64(0)
	if ms > 0 && ms <= 1<<63-1-c.Now {
		// 7.0.15 does not check for overflow: a timeout past the end of
		// time wraps to the past, and the pause ends at once.
		end = c.Now + ms
	}
	e := c.E
	if typ > e.srv.pause {
		e.srv.pause = typ
	}
	if end > e.srv.pauseEnd {
		e.srv.pauseEnd = end
	}
	if e.srv.pause != pauseOff && e.srv.pauseEnd <= c.Now {
		e.unpause()
	}
	c.W.OK()
}

func clientUnpause(c *Ctx, args [][]byte) {
	c.E.unpause()
	c.W.OK()
}

func clientUnblock(c *Ctx, args [][]byte) {
	id, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	withError := false
	if len(args) == 4 {
		switch {
		case cstr.EqualFold(args[3], "timeout"):
		case cstr.EqualFold(args[3], "error"):
			withError = true
		default:
			c.Error(ErrUnblockReason)
			return
		}
	} else if len(args) > 4 {
		c.Error(ErrSubcommandSyntax("client", args[1]))
		return
	}
	if c.E.UnblockClient(id, withError) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

var clientHelpLines = []string{
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
}

func clientHelp(c *Ctx, args [][]byte) { ReplyHelp(c, "client", clientHelpLines) }
