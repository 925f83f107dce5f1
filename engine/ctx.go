package engine

import (
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// Ctx is the context one command executes in.
type Ctx struct {
	E    *Engine
	C    *Client
	W    *resp.Writer
	DB   *store.DB
	Now  int64 // Unix ms, fixed for the whole command (and script)
	Spec *Spec
	// looked is the command Exec resolved, set even when it was refused.
	looked *Spec

	// InScript is set for commands called from Lua (redis.call).
	InScript bool
	// ScriptRO is set under EVAL_RO / EVALSHA_RO / FCALL_RO and no-writes
	// functions.
	ScriptRO bool
	// InExec is set while EXEC runs its queue.
	InExec bool
	// errCounted is set by a command that counted the error replies it
	// wrote itself (a script's result, see countReplyError).
	errCounted bool
	// Applying is set while a replicated op runs (Raft apply): the
	// client gates were passed on the leader when it was proposed.
	Applying bool

	// call is callAt's state (top-level commands only).
	call callFrame
}

// NoBlock reports whether blocking commands must answer at once (inside
// MULTI/EXEC and scripts they never block).
func (c *Ctx) NoBlock() bool {
	// On a replicated server only the leader's own clients block; an op
	// from elsewhere answers at once, which changes nothing either way.
	return c.InScript || c.InExec || (c.E.repl != nil && c.C == c.E.repl.apply)
}

// DBIndex returns the index of the selected database.
func (c *Ctx) DBIndex() int { return c.C.DB }

// Error writes an error reply.
func (c *Ctx) Error(msg string) { c.W.Error(msg) }

// Lookup returns a live key's entry for reading, or nil.
func (c *Ctx) Lookup(key []byte) *store.Entry { return c.lookupRead(key, false) }

// Touch is Lookup for the TOUCH command, which Redis 7.2's CLIENT
// NO-TOUCH does not stop from updating the key's access time.
func (c *Ctx) Touch(key []byte) *store.Entry { return c.lookupRead(key, true) }

func (c *Ctx) lookupRead(key []byte, touchCmd bool) *store.Entry {
	e := c.DB.Lookup(string(key), c.Now)
	if e == nil {
		c.ReadMiss(key)
		return nil
	}
	c.E.Stats.KeyspaceHits++
	c.access(e, touchCmd)
	return e
}

// touchKey records an access to e (the LRU clock or LFU counter lookupKey
// updates, see lfu.go), unless Redis 7.2's CLIENT NO-TOUCH is on.
func (c *Ctx) touchKey(e *store.Entry) { c.access(e, false) }

// access is touchKey; touchCmd says the command is TOUCH, which NO-TOUCH
// does not stop. Inside a script the calling client's mode applies and
// its command is the script, so there even redis.call('TOUCH') leaves the
// clock alone, as in Redis, where the check reads server.current_client.
func (c *Ctx) access(e *store.Entry, touchCmd bool) {
	if c.InScript {
		if caller := c.E.ScriptCaller(); caller != nil && caller.NoTouch {
			return
		}
	} else if c.C.NoTouch && !touchCmd {
		return
	}
	if n, ok := sharedInt(e.Value); ok {
		// The shared object's clock is what OBJECT reads; a value
		// replacing it under LFU inherits it (dbSetValue).
		c.E.touchShared(n, c.Now)
		e.Access = c.E.sharedAccess[n]
	} else if c.E.Config.LFU {
		e.Access = c.E.accessed(e.Access, c.Now)
	} else {
		e.Access = c.Now
	}
}

// LookupAs returns key's value as a T: (zero, true) when the key is
// missing, (zero, false) after replying WRONGTYPE. write looks the key up
// for writing (an expired key is reclaimed first). Each type's readX/writeX
// helper is this.
func LookupAs[T store.Value](c *Ctx, key []byte, write bool) (T, bool) {
	var zero T
	var e *store.Entry
	if write {
		e = c.LookupWrite(key)
	} else {
		e = c.Lookup(key)
	}
	if e == nil {
		return zero, true
	}
	v, ok := e.Value.(T)
	if !ok {
		c.WrongType()
		return zero, false
	}
	return v, true
}

// LookupWrite returns a live key's entry for writing, or nil. An expired
// key is reclaimed first, firing its "expired" event as Redis does. Like a
// read it is an access (lookupKeyWrite).
func (c *Ctx) LookupWrite(key []byte) *store.Entry {
	e := c.ExpireIfNeeded(key)
	if e != nil {
		c.touchKey(e)
	}
	return e
}

// ExpireIfNeeded is LookupWrite without the access (expireIfNeeded, as DEL
// does before deleting).
func (c *Ctx) ExpireIfNeeded(key []byte) *store.Entry {
	e := c.DB.Peek(string(key))
	if e == nil || !e.Expired(c.Now) {
		return e
	}
	k := string(key) // copied only here: keyExpired may keep it
	c.DB.Delete(k)
	c.E.keyExpired(c.C.DB, k)
	return nil
}

// Modified records that key was changed: it breaks WATCH and sends
// client-side caching invalidations (Redis's signalModifiedKey).
func (c *Ctx) Modified(key []byte) {
	c.E.Stats.Dirty++
	if c.E.signalNeeded() { // else skip copying the key: one allocation per write
		c.E.signalModified(c.C.DB, string(key))
	}
}

// Notify fires a keyspace notification (Redis's notifyKeyspaceEvent).
func (c *Ctx) Notify(class config.NotifyClass, event string, key []byte) {
	c.E.notify(c.C.DB, class, event, string(key))
}

// Ready records that key may now serve clients blocked on it (Redis's
// signalKeyAsReady).
func (c *Ctx) Ready(key []byte) {
	c.E.signalReady(c.C.DB, string(key))
}

// WrongType writes the WRONGTYPE error.
func (c *Ctx) WrongType() { c.W.Error(ErrWrongType) }
