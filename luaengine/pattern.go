package luaengine

import (
	"strings"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// Lua 5.1's patterns (lstrlib.c): string.find, match, gmatch and gsub.
// gopher-lua's own matcher differs in its error texts and corner cases,
// recurses once per repetition of an item (a `*` over a long subject
// nests as deep as the subject is long), and rebuilds gsub's result after
// every replacement, which is quadratic. This one follows lstrlib.c:
// recursion only advances through the pattern (bounded by
// maxMatchDepth, where Redis's C stack would overflow), gsub builds its
// result once (bounded by maxStringLen), and a long match passes
// through the script's check points, so a busy script that matches
// forever can still be killed.

const (
	luaMaxCaptures = 32
	capUnfinished  = -1
	capPosition    = -2
	patternSpecial = "^$*+?.([%-"

	// maxMatchDepth bounds match's recursion (one level per pattern
	// item); Redis's Lua 5.1 has no bound and overflows its C stack
	// first. The text is Lua 5.2's.
	maxMatchDepth = 200000
	errMatchDepth = "pattern too complex"
)

// matchTickPeriod is how many match steps pass between two check points
// (a variable only so that tests can stop backtracking patterns sooner).
var matchTickPeriod = 1024

type capture struct {
	init, len int
}

type matchState struct {
	e       *Engine
	L       *lua.LState
	src     string
	pat     string
	level   int
	capture [luaMaxCaptures]capture
	depth   int
	steps   int
}

// pc returns the pattern byte at i, 0 past the end (the pattern is a C
// string to lstrlib.c).
func (ms *matchState) pc(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

func (ms *matchState) checkCapture(l byte) int {
	n := int(l) - '1'
	if n < 0 || n >= ms.level || ms.capture[n].len == capUnfinished {
		luaError(ms.L, "invalid capture index")
	}
	return n
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	luaError(ms.L, "invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.pc(p)
	p++
	switch c {
	case '%':
		if ms.pc(p) == 0 {
			luaError(ms.L, "malformed pattern (ends with '%%')")
		}
		return p + 1
	case '[':
		if ms.pc(p) == '^' {
			p++
		}
		for {
			if ms.pc(p) == 0 {
				luaError(ms.L, "malformed pattern (missing ']')")
			}
			c := ms.pc(p)
			p++
			if c == '%' && ms.pc(p) != 0 {
				p++
			}
			if ms.pc(p) == ']' {
				break
			}
		}
		return p + 1
	}
	return p
}

// isLetter and isDigit are isalpha and isdigit in the C locale.
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// matchClass is match_class in the C locale.
func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isLetter(c)
	case 'c':
		res = c < 0x20 || c == 0x7f
	case 'd':
		res = isDigit(c)
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = c > 0x20 && c < 0x7f && !isLetter(c) && !isDigit(c)
	case 's':
		res = c == ' ' || c >= '\t' && c <= '\r'
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isLetter(c) || isDigit(c)
	case 'x':
		res = isHex(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

// matchBracketClass is matchbracketclass: p is the '[', ec the ']'.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.pc(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.pc(p) == '%':
			p++
			if matchClass(c, ms.pc(p)) {
				return sig
			}
		case ms.pc(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.pc(p-2) <= c && c <= ms.pc(p) {
				return sig
			}
		case ms.pc(p) == c:
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.pc(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.pc(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.pc(p) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if ms.pc(p) == 0 || ms.pc(p+1) == 0 {
		luaError(ms.L, "unbalanced pattern")
	}
	if s >= len(ms.src) || ms.src[s] != ms.pc(p) {
		return -1
	}
	b, e := ms.pc(p), ms.pc(p+1)
	cont := 1
	for s++; s < len(ms.src); s++ {
		if ms.src[s] == e {
			cont--
			if cont == 0 {
				return s + 1
			}
		} else if ms.src[s] == b {
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	level := ms.level
	if level >= luaMaxCaptures {
		luaError(ms.L, "too many captures")
	}
	ms.capture[level] = capture{s, what}
	ms.level = level + 1
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s int, l byte) int {
	n := ms.checkCapture(l)
	c := ms.capture[n]
	if len(ms.src)-s >= c.len && ms.src[c.init:c.init+c.len] == ms.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match is lstrlib.c's match: the end of the match of pattern[p:] at
// src[s:], or -1.
func (ms *matchState) match(s, p int) int {
	ms.depth++
	if ms.depth > maxMatchDepth {
		luaError(ms.L, errMatchDepth)
	}
	defer func() { ms.depth-- }()
	if ms.steps++; ms.steps%matchTickPeriod == 0 {
		ms.e.checkpoint(ms.L, uint64(matchTickPeriod)*stepsPerMatch)
	}
	for {
		switch ms.pc(p) {
		case '(':
			if ms.pc(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case 0:
			return s
		case '%':
			switch ms.pc(p + 1) {
			case 'b':
				s = ms.matchBalance(s, p+2)
				if s < 0 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if ms.pc(p) != '[' {
					luaError(ms.L, "missing '[' after '%%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev, cur byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if s < len(ms.src) {
					cur = ms.src[s]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(cur, p, ep-1) {
					return -1
				}
				p = ep
				continue
			}
			if d := ms.pc(p + 1); isDigit(d) {
				s = ms.matchCapture(s, d)
				if s < 0 {
					return -1
				}
				p += 2
				continue
			}
		case '$':
			if ms.pc(p+1) == 0 {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		}
		// A single-character item, maybe repeated.
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.pc(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res >= 0 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// pushCapture is push_onecapture.
func (ms *matchState) pushCapture(i, s, e int) {
	ms.L.Push(ms.captureValue(i, s, e))
}

func (ms *matchState) captureValue(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i != 0 {
			luaError(ms.L, "invalid capture index")
		}
		return lua.LString(ms.src[s:e])
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		luaError(ms.L, "unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures is push_captures; whole is false for find (no whole
// match when there are no captures).
func (ms *matchState) pushCaptures(s, e int, whole bool) int {
	n := ms.level
	if n == 0 && whole {
		n = 1
	}
	checkStack(ms.L, ms.L.GetTop(), n, "too many captures")
	for i := 0; i < n; i++ {
		ms.pushCapture(i, s, e)
	}
	return n
}

func (e *Engine) newMatch(L *lua.LState, src, pat string) *matchState {
	// The pattern is a C string.
	if i := strings.IndexByte(pat, 0); i >= 0 {
		pat = pat[:i]
	}
	return &matchState{e: e, L: L, src: src, pat: pat}
}

// strFind is str_find_aux: string.find (find) and string.match.
func (e *Engine) strFind(L *lua.LState, find bool) int {
	fname := "match"
	if find {
		fname = "find"
	}
	s := checkString(L, 1, fname)
	p := checkString(L, 2, fname)
	init := int64(1)
	if L.Get(3) != lua.LNil {
		init = toInt64(checkNumber(L, 3, fname))
	}
	if init < 0 {
		init += int64(len(s)) + 1
		init = max(init, 0)
	}
	init = min(max(init-1, 0), int64(len(s)))
	cp := p
	if i := strings.IndexByte(cp, 0); i >= 0 {
		cp = cp[:i]
	}
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(cp, patternSpecial)) {
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(int(init) + i + 1))
			L.Push(lua.LNumber(int(init) + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := e.newMatch(L, s, p)
	anchor := ms.pc(0) == '^'
	p0 := 0
	if anchor {
		p0 = 1
	}
	for s1 := int(init); ; s1++ {
		ms.level = 0
		if res := ms.match(s1, p0); res >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(res))
				return ms.pushCaptures(0, 0, false) + 2
			}
			return ms.pushCaptures(s1, res, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

// strGmatch is gmatch: the iterator keeps the subject, the pattern and
// the position.
func (e *Engine) strGmatch(L *lua.LState) int {
	s := checkString(L, 1, "gmatch")
	p := checkString(L, 2, "gmatch")
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := e.newMatch(L, s, p)
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if end := ms.match(src, 0); end >= 0 {
				pos = end
				if end == src {
					pos++
				}
				return ms.pushCaptures(src, end, true)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

// strGsub is str_gsub. The result is built once; a result longer than
// maxStringLen is a memory error.
func (e *Engine) strGsub(L *lua.LState) int {
	src := checkString(L, 1, "gsub")
	p := checkString(L, 2, "gsub")
	repl := L.Get(3)
	maxS := int32(len(src) + 1)
	if L.Get(4) != lua.LNil {
		maxS = checkInt(L, 4, "gsub")
	}
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		argError(L, 3, "gsub", "string/function/table expected")
	}
	ms := e.newMatch(L, src, p)
	anchor := ms.pc(0) == '^'
	p0 := 0
	if anchor {
		p0 = 1
	}
	var b []byte
	charged := 0
	add := func(piece string) {
		e.checkStringLen(L, len(b)+len(piece))
		b = append(b, piece...)
		if len(b)-charged >= chargeStride {
			e.chargeBytes(L, len(b)-charged)
			charged = len(b)
		}
	}
	s, n := 0, int32(0)
	for n < maxS {
		ms.level = 0
		end := ms.match(s, p0)
		if end >= 0 {
			n++
			ms.addValue(add, repl, s, end)
		}
		if end > s {
			s = end
		} else if s < len(src) {
			add(src[s : s+1])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	add(src[s:])
	e.chargeBytes(L, len(b)-charged)
	L.Push(lua.LString(b))
	L.Push(lua.LNumber(n))
	return 2
}

// addValue is add_value: the replacement of the match src[s:end].
func (ms *matchState) addValue(add func(string), repl lua.LValue, s, end int) {
	L := ms.L
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		news, _ := luaString(r)
		for i := 0; i < len(news); i++ {
			c := news[i]
			if c != '%' {
				add(news[i : i+1])
				continue
			}
			i++
			var d byte // the string's terminating NUL past its end
			if i < len(news) {
				d = news[i]
			}
			switch {
			case !isDigit(d):
				add(string(d))
			case d == '0':
				add(ms.src[s:end])
			default:
				cv, _ := luaString(ms.captureValue(int(d-'1'), s, end))
				add(cv)
			}
		}
		return
	case *lua.LFunction:
		L.Push(r)
		n := ms.pushCaptures(s, end, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		v = L.GetTable(r, ms.captureValue(0, s, end))
	}
	if !lua.LVAsBool(v) {
		add(ms.src[s:end])
		return
	}
	str, ok := luaString(v)
	if !ok {
		luaError(L, "invalid replacement value (a %s)", v.Type().String())
	}
	add(str)
}
