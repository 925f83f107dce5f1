package engine

import "strconv"

// Doc is a command's COMMAND DOCS documentation, for the commands Redis
// 7.0 lacks (Spec.Doc): the fields of Redis's addReplyCommandDocs, in its
// order (RESP3 encodes them).
type Doc struct {
	Summary, Since, Group, Complexity string
	History                           [][2]string // since, change
	Args                              []DocArg
	// Container: the doc has a "subcommands" entry, filled from the
	// command table when written.
	Container bool
}

// DocArg is one argument (addReplyCommandArgList); Type is Redis's
// argument type (string, integer, key, pure-token, oneof, block, ...).
type DocArg struct {
	Name, Type, Token string
	KeySpec           int      // key_spec_index, for Type "key"
	Flags             []string // optional, multiple, multiple_token
	Args              []DocArg // for oneof and block
}

// RESP3 encodes d as Redis's addReplyCommandDocs does.
func (d *Doc) RESP3() []byte {
	var b []byte
	n := 1
	for _, has := range []bool{d.Summary != "", d.Since != "", d.Complexity != "", d.History != nil, d.Args != nil, d.Container} {
		if has {
			n++
		}
	}
	b = appendLen(b, '%', n)
	if d.Summary != "" {
		b = appendBulks(b, "summary", d.Summary)
	}
	if d.Since != "" {
		b = appendBulks(b, "since", d.Since)
	}
	b = appendBulks(b, "group", d.Group)
	if d.Complexity != "" {
		b = appendBulks(b, "complexity", d.Complexity)
	}
	if d.History != nil {
		b = appendBulks(b, "history")
		b = appendLen(b, '~', len(d.History))
		for _, h := range d.History {
			b = appendLen(b, '*', 2)
			b = appendBulks(b, h[0], h[1])
		}
	}
	if d.Args != nil {
		b = appendBulks(b, "arguments")
		b = appendDocArgs(b, d.Args)
	}
	if d.Container {
		b = appendBulks(b, "subcommands")
		b = appendLen(b, '%', 0)
	}
	return b
}

// appendDocArgs encodes args as Redis's addReplyCommandArgList does.
func appendDocArgs(b []byte, args []DocArg) []byte {
	b = appendLen(b, '*', len(args))
	for _, a := range args {
		n := 2
		for _, has := range []bool{a.Type == "key", a.Token != "", a.Flags != nil, a.Type == "oneof" || a.Type == "block"} {
			if has {
				n++
			}
		}
		b = appendLen(b, '%', n)
		b = appendBulks(b, "name", a.Name, "type", a.Type)
		if a.Type == "key" {
			b = appendBulks(b, "key_spec_index")
			b = append(append(append(b, ':'), strconv.Itoa(a.KeySpec)...), '\r', '\n')
		}
		if a.Token != "" {
			b = appendBulks(b, "token", a.Token)
		}
		if a.Flags != nil {
			b = appendBulks(b, "flags")
			b = appendLen(b, '~', len(a.Flags))
			for _, f := range a.Flags {
				b = append(append(append(b, '+'), f...), '\r', '\n')
			}
		}
		if a.Type == "oneof" || a.Type == "block" {
			b = appendBulks(b, "arguments")
			b = appendDocArgs(b, a.Args)
		}
	}
	return b
}

func appendLen(b []byte, kind byte, n int) []byte {
	return append(append(append(b, kind), strconv.Itoa(n)...), '\r', '\n')
}

func appendBulks(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = appendLen(b, '$', len(s))
		b = append(append(b, s...), '\r', '\n')
	}
	return b
}

// Docs of the engine's commands Redis 7.0 lacks (Spec.Doc): Redis
// 7.2's (src/commands/waitaof.json, client-setinfo.json,
// client-no-touch.json).
var (
	docWaitaof = &Doc{
		Summary:    "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.",
		Since:      "7.2.0",
		Group:      "generic",
		Complexity: "O(1)",
		Args: []DocArg{
			{Name: "numlocal", Type: "integer"},
			{Name: "numreplicas", Type: "integer"},
			{Name: "timeout", Type: "integer"},
		},
	}
	docClientSetInfo = &Doc{
		Summary:    "Sets information specific to the client or connection.",
		Since:      "7.2.0",
		Group:      "connection",
		Complexity: "O(1)",
		Args: []DocArg{{Name: "attr", Type: "oneof", Args: []DocArg{
			{Name: "libname", Type: "string", Token: "LIB-NAME"},
			{Name: "libver", Type: "string", Token: "LIB-VER"},
		}}},
	}
	docClientNoTouch = &Doc{
		Summary:    "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
		Since:      "7.2.0",
		Group:      "connection",
		Complexity: "O(1)",
		Args: []DocArg{{Name: "enabled", Type: "oneof", Args: []DocArg{
			{Name: "on", Type: "pure-token", Token: "ON"},
			{Name: "off", Type: "pure-token", Token: "OFF"},
		}}},
	}
)
