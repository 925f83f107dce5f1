package engine

import (
	"strconv"

	"github.com/lockkv/lockkv/internal/cstr"
)

// MONITOR: every command a client runs is streamed to the monitors, in
// Redis's format: +1690000000.123456 [0 127.0.0.1:1234] "cmd" "arg".

var monitorCommands = []*Spec{
	{Name: "monitor", Arity: 1, Flags: Admin | NoScript | Loading | Stale, Fn: monitor},
}

func init() { Register(monitorCommands) }

// monitorState holds MONITOR clients.
type monitorState struct {
	count   int
	clients []*Client
	line    []byte
}

func (e *Engine) monitorFreeClient(c *Client) {
	if !c.monitor {
		return
	}
	c.monitor = false
	for i, m := range e.monitors.clients {
		if m == c {
			e.monitors.clients = append(e.monitors.clients[:i], e.monitors.clients[i+1:]...)
			break
		}
	}
	e.monitors.count = len(e.monitors.clients)
}

func monitor(c *Ctx, args [][]byte) {
	if c.C.monitor {
		return // Redis ignores MONITOR from a monitor
	}
	c.C.monitor = true
	c.E.monitors.clients = append(c.E.monitors.clients, c.C)
	c.E.monitors.count = len(c.E.monitors.clients)
	c.W.OK()
}

// redactAuth is AUTH's Spec.Redact: the password (and user name), as
// Redis's redactClientCommandArgument.
func redactAuth(args [][]byte, i int) bool { return i >= 1 }

// redactHello is HELLO's Spec.Redact: the user name and password after
// AUTH.
func redactHello(args [][]byte, i int) bool {
	for j := 2; j < len(args); j++ {
		if cstr.EqualFold(args[j], "auth") && j+2 < len(args) {
			if i == j+1 || i == j+2 {
				return true
			}
			j += 2
		} else if cstr.EqualFold(args[j], "setname") {
			j++
		}
	}
	return false
}

// feedMonitors sends the command to every MONITOR client.
func (e *Engine) feedMonitors(c *Ctx, spec *Spec, args [][]byte) {
	if e.monitors.count == 0 {
		return
	}
	now := e.Clock.Now()
	b := e.monitors.line[:0]
	b = append(b, '+')
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, '.')
	us := now.Nanosecond() / 1000
	for d := 100000; d > 1; d /= 10 {
		if us < d {
			b = append(b, '0')
		}
	}
	b = strconv.AppendInt(b, int64(us), 10)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(c.C.DB), 10)
	b = append(b, ' ')
	switch {
	case c.InScript:
		b = append(b, "lua"...)
	case c.C.Conn != nil:
		b = append(b, c.C.Conn.RemoteAddr()...)
	default:
		b = append(b, "unknown"...)
	}
	b = append(b, ']')
	for i, a := range args {
		b = append(b, ' ')
		if spec.Redact != nil && spec.Redact(args, i) {
			b = append(b, `"(redacted)"`...)
			continue
		}
		b = cstr.AppendRepr(b, a)
	}
	b = append(b, '\r', '\n')
	e.monitors.line = b
	for _, m := range e.monitors.clients {
		if m.freed {
			continue
		}
		w := e.Writer(m)
		w.Raw(b)
	}
}
