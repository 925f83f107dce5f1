// Package lua51 makes gopher-lua behave as Redis's Lua 5.1 wherever a
// script can tell the difference, and holds every access luaengine makes
// to gopher-lua's unexported state (unsafe and reflect appear nowhere
// else in luaengine; a test there checks it).
//
// luaengine uses it at four points:
//
//   - compiling: CheckSyntax parses a chunk with Lua 5.1's grammar and
//     error texts before gopher-lua does, and Rewrite adjusts the parsed
//     chunk (`..` formats numbers as "%.14g", numeric for converts
//     strings, every loop and function body gets a check point, table
//     constructors, stores and `#` go through the helpers below);
//   - running: Install puts the helpers the rewritten code calls where
//     only that code finds them, and returns the Runtime that keeps
//     their state (Mark and Unwind around protected calls, Next for
//     next and pairs); Interp reaches the interpreter's call stack;
//   - error texts: Describe and Message word runtime errors as Lua 5.1
//     does, with the names of the values involved;
//   - tables: Set (and SetInt), ForEach, Unordered, Len, Parts, IsMarker,
//     MarkSized, ResetArray and SetStrings (below); StrToNumber and AppendNumber
//     convert numbers as Lua 5.1 does; StringValue boxes a string
//     without an allocation of its own.
//
// # Why tables need care
//
// Lua 5.1 walks a table's array part and then its hash nodes in slot
// order, which follows from the sizes the table was created with and the
// order in which keys were inserted and deleted; gopher-lua walks its
// keys in first-insertion order. Scripts see the order through next and
// pairs, cjson.encode, cmsgpack.pack, table.foreach and the RESP3 map
// and set replies, and can make it part of what they write or reply
// (`for k in pairs(t) do redis.call('RPUSH', key, k) end`). So the order
// must be Redis's, to give Redis's bytes, and it must be a function of
// the script's own operations on the table and nothing else: a cluster
// runs every script on every node, and again when a node replays its
// log or restores a snapshot (which carries no interpreter state) and
// replays what follows, and every run must make the same writes. An
// order taken from addresses, from a Go map's iteration or from what an
// interpreter ran before would let the nodes' keyspaces drift apart.
//
// gopher-lua records when a key other than an integer of its array part
// was first set, nothing else. Every other store (an integer key of the
// array part set or cleared, any key set to nil) is logged into the
// table's own copy of Lua's layout as it happens (order.go).
//
// # The invariant every library keeps
//
// A library function (base, string, table, math, bit, cjson, cmsgpack,
// struct, coroutine, redis.*) that stores into a table a script can reach
// (one it was given, or one it returns) does so through Set, and walks
// one, where the order can show, through ForEach or Runtime.Next;
// Unordered is for walks whose result does not depend on the order
// (counting entries, checking key types, clearing a table). The one
// exception is a table the function itself has just made and no script
// has seen yet, filled with non-nil values either under string keys
// alone or under 1..n alone, in ascending order (a decoder's object or
// array): Lua's layout of it is rebuilt exactly from what gopher-lua
// records. A raw RawSet on a script's table, or a walk with
// LTable.Next or ForEach, gives it an order Redis would not: luaengine's
// tests check both statically (no such call outside the allowed forms)
// and by running every library function over logged tables and
// checking each with Check.
//
// Stores the emulation does not follow, by design: into a table with a
// metatable a script set (taken as made when the layout is next read),
// and keys Lua hashes by address (tables, functions), which get their
// rank of first insertion.
package lua51
