package engine

import (
	"strconv"

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
	// park is why the client runs no command now (parkNone: it may);
	// set and cleared by Engine.park and Engine.unpark only.
	park parkKind
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

// parkKind says why a client runs no command now. A client is parked for
// one reason at a time: Engine.park asserts the client was not parked and
// Engine.unpark that it was parked for the reason it ends, so a transition
// two code paths would make at once panics (inside a command, recovered
// as an internal error: recover.go) instead of leaving a state nobody
// clears.
type parkKind uint8

const (
	parkNone       parkKind = iota
	parkBlocked             // BLPOP & co.; detail in Client.blk (and repl.retrying on a cluster)
	parkPaused              // CLIENT PAUSE holds its command, which runs again
	parkWait                // WAIT or WAITAOF; detail in srv.waits
	parkReply               // a reply promised by replyLater (RAFT.NODE ADD/REMOVE/TRANSFER, CLUSTER FAILOVER)
	parkProposed            // its op is in flight; the apply answers it
	parkForwarded           // its command was sent to the leader, which answers it
	parkReadRound           // a read waits for a leadership confirmation; it runs again
	parkBehindExec          // a write or EXEC waits for ops in flight (WATCH); it runs again
)

var parkNames = [...]string{"none", "blocked", "paused", "wait", "reply", "proposed", "forwarded", "read-round", "behind-exec"}

func (k parkKind) String() string {
	if int(k) < len(parkNames) {
		return parkNames[k]
	}
	return "park(" + strconv.Itoa(int(k)) + ")"
}

// reruns reports whether the command at the head of the client's pipeline
// did not run and runs again when the park ends.
func (k parkKind) reruns() bool {
	return k == parkPaused || k == parkReadRound || k == parkBehindExec
}

// deferred reports whether the command the client just sent has not run
// here yet: it runs again (reruns), or its op or the leader answers it.
func (k parkKind) deferred() bool {
	return k.reruns() || k == parkProposed || k == parkForwarded
}

// held reports whether the client waits for something that may take any
// time (Conn.Blocked, CLIENT LIST's b flag, INFO blocked_clients), not for
// its own command's round trip through the log or the leader.
func (k parkKind) held() bool {
	return k == parkBlocked || k == parkPaused || k == parkWait || k == parkReply
}

// park records why cl runs no command now; cl must not be parked.
func (e *Engine) park(cl *Client, k parkKind) {
	if cl.park != parkNone || k == parkNone {
		panic("client " + strconv.FormatInt(cl.ID, 10) + " parked " + k.String() + " while " + cl.park.String())
	}
	cl.park = k
}

// unpark ends cl's park, which must be k.
func (e *Engine) unpark(cl *Client, k parkKind) {
	if cl.park != k || k == parkNone {
		panic("client " + strconv.FormatInt(cl.ID, 10) + " unparked from " + k.String() + " while " + cl.park.String())
	}
	cl.park = parkNone
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
