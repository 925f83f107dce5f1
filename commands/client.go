package commands

import (
	"github.com/lockkv/lockkv/internal/resp"
)

// Client is one connection's state, owned by the engine goroutine.
type Client struct {
	ID      int64
	Name    string
	LibName string
	LibVer  string
	DB      int
	// W buffers the client's output; W.Proto is its protocol (2 or 3).
	W resp.Writer
	// Conn is nil for internal clients (scripts, Raft apply).
	Conn Conn
	// Local is set for a connection from 127.0.0.1 or ::1 (Redis's
	// islocalClient): enable-debug-command and enable-protected-configs
	// "local" admit it, protected mode never refuses it.
	Local bool

	Authenticated   bool
	Created         int64 // Unix ms
	LastInteraction int64 // Unix ms
	// lastCmd is the last command the client sent that exists, run or
	// refused (CLIENT LIST cmd=; nil shows NULL).
	lastCmd         *Spec
	CloseAfterReply bool
	NoEvict         bool
	NoTouch         bool
	// Reply mode set by CLIENT REPLY: ReplyOn, ReplyOff, ReplySkip.
	ReplyMode int
	// replySkipNext is set by CLIENT REPLY SKIP: the command after it
	// gets no reply (Redis's CLIENT_REPLY_SKIP_NEXT).
	replySkipNext bool
	// Flags for CLIENT LIST ("N" when none).
	Readonly bool

	multi   multiClient
	sub     subClient
	blk     blockClient
	track   trackClient
	monitor bool
	// postponed is set while CLIENT PAUSE holds the client's next command.
	postponed bool
	// waiting is set while the client waits in WAIT for its timeout.
	waiting bool
	// repl is the client's replication state.
	repl replClient

	// queue holds pipelines not yet run, because the client is blocked.
	queue []batch

	outDirty bool
	freed    bool
	// closeASAP is set once the client is to be closed (output buffer or
	// query buffer limit): it gets no more output and runs nothing more.
	closeASAP bool
	// obufSoftSince is when (Unix seconds) the client's output was first
	// seen at its soft limit, 0 when it is below (see outbuf.go).
	obufSoftSince int64
}

// Reply modes.
const (
	ReplyOn = iota
	ReplyOff
	ReplySkip
)

// Proto returns the client's RESP version.
func (c *Client) Proto() int { return c.W.Proto }

// Freed reports whether the client was released.
func (c *Client) Freed() bool { return c.freed }
