package lua51

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CheckSyntax parses src with Lua 5.1's grammar, before gopher-lua
// compiles it: it refuses what Lua 5.1 refuses and gopher-lua accepts
// (goto, malformed numbers, escapes above 255, ambiguous calls) and words
// every syntax error as Lua 5.1's parser does ("'=' expected near 'x'").
// It returns "" when it finds no error.
//
// The source returned is src with the numerals gopher-lua's lexer cannot
// read (hex with a binary exponent, "0x1p4", which strtod reads) written
// in decimal, on the same line.
//
// level is how many C calls are under way when the parse starts (Lua
// counts parser levels in nCcalls): 0 for a script, the script's count
// for loadstring.
func CheckSyntax(src, chunk string, vararg bool, level int) (msg, fixed string) {
	p := &luaParser{lx: luaLexer{src: src, line: 1}, chunk: chunk, vararg: []bool{vararg}, loops: []int{0}, level: level, funcLines: []int{0}}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(luaSyntaxErr); ok {
				msg = string(e)
				return
			}
			panic(r)
		}
	}()
	p.next()
	p.block(0)
	if p.tok.t != tkEOS {
		p.errorExpected(tkEOS)
	}
	if len(p.numFix) == 0 {
		return "", src
	}
	var b strings.Builder
	last := 0
	for _, f := range p.numFix {
		b.WriteString(src[last:f.start])
		b.WriteString(f.text)
		last = f.end
	}
	b.WriteString(src[last:])
	return "", b.String()
}

// numFix replaces src[start:end] by text.
type numFix struct {
	start, end int
	text       string
}

type luaSyntaxErr string

const (
	tkEOS = iota + 256
	tkName
	tkString
	tkNumber
	tkConcat
	tkDots
	tkEq
	tkGE
	tkLE
	tkNE
	// reserved words
	tkAnd
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
)

var luaReserved = []string{"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"}

func tokenName(t int) string {
	switch {
	case t < 256:
		return string(rune(t))
	case t == tkEOS:
		return "<eof>"
	case t == tkName:
		return "<name>"
	case t == tkString:
		return "<string>"
	case t == tkNumber:
		return "<number>"
	case t == tkConcat:
		return ".."
	case t == tkDots:
		return "..."
	case t == tkEq:
		return "=="
	case t == tkGE:
		return ">="
	case t == tkLE:
		return "<="
	case t == tkNE:
		return "~="
	case t >= tkAnd:
		return luaReserved[t-tkAnd]
	}
	return "?"
}

type luaToken struct {
	t    int
	text string // source text for names, strings, numbers
}

type luaLexer struct {
	src  string
	pos  int
	line int
}

type luaParser struct {
	lx    luaLexer
	chunk string
	tok   luaToken
	ahead *luaToken
	// vararg per open function; loops per open function.
	vararg []bool
	loops  []int
	numFix []numFix
	// level counts the syntax levels open (enterLevel); funcLines are
	// the lines the open functions start at (0 for the main chunk).
	level     int
	funcLines []int
}

// MaxCCalls is LUAI_MAXCCALLS: how deep C calls nest (nCcalls), parser
// levels included.
const MaxCCalls = 200

// enterLevel is lparser.c's enterlevel: a chunk or an expression nested
// deeper than LUAI_MAXCCALLS levels is refused, which also bounds every
// later walk of the tree (gopher-lua's compiler, the rewrite pass).
func (p *luaParser) enterLevel() {
	p.level++
	if p.level > MaxCCalls {
		p.fail("chunk has too many syntax levels", nil)
	}
}

func (p *luaParser) leaveLevel() { p.level-- }

func (p *luaParser) fail(msg string, t *luaToken) {
	near := ""
	if t != nil {
		switch t.t {
		case tkName, tkString, tkNumber:
			near = t.text
		default:
			near = tokenName(t.t)
		}
		panic(luaSyntaxErr(fmt.Sprintf("%s:%d: %s near '%s'", p.chunk, p.lx.line, msg, near)))
	}
	panic(luaSyntaxErr(fmt.Sprintf("%s:%d: %s", p.chunk, p.lx.line, msg)))
}

func (p *luaParser) errorExpected(t int) { p.fail("'"+tokenName(t)+"' expected", &p.tok) }

func (p *luaParser) next() {
	if p.ahead != nil {
		p.tok = *p.ahead
		p.ahead = nil
		return
	}
	p.tok = p.lex()
}

func (p *luaParser) peek() luaToken {
	if p.ahead == nil {
		t := p.lex()
		p.ahead = &t
	}
	return *p.ahead
}

func (p *luaParser) lexError(msg string, t int, text string) {
	p.fail(msg, &luaToken{t: t, text: text})
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *luaParser) newline() {
	lx := &p.lx
	c := lx.src[lx.pos]
	lx.pos++
	if lx.pos < len(lx.src) && (lx.src[lx.pos] == '\n' || lx.src[lx.pos] == '\r') && lx.src[lx.pos] != c {
		lx.pos++
	}
	lx.line++
}

// longBracket reads "[==[" at pos; it returns the level or -1 (not a
// long bracket) and, for "[=" without a second "[", -2.
func (p *luaParser) longLevel() int {
	lx := &p.lx
	i := lx.pos + 1
	n := 0
	for i < len(lx.src) && lx.src[i] == '=' {
		i++
		n++
	}
	if i < len(lx.src) && lx.src[i] == '[' {
		return n
	}
	if n > 0 {
		return -2
	}
	return -1
}

func (p *luaParser) readLong(level int, isString bool) string {
	lx := &p.lx
	start := lx.pos
	lx.pos += level + 2
	if lx.pos < len(lx.src) && (lx.src[lx.pos] == '\n' || lx.src[lx.pos] == '\r') {
		p.newline()
	}
	for {
		if lx.pos >= len(lx.src) {
			if isString {
				p.lexError("unfinished long string", tkEOS, "")
			}
			p.lexError("unfinished long comment", tkEOS, "")
		}
		c := lx.src[lx.pos]
		switch {
		case c == ']':
			i := lx.pos + 1
			n := 0
			for i < len(lx.src) && lx.src[i] == '=' {
				i++
				n++
			}
			if n == level && i < len(lx.src) && lx.src[i] == ']' {
				lx.pos = i + 1
				return lx.src[start:lx.pos]
			}
			lx.pos++
		case c == '\n' || c == '\r':
			p.newline()
		default:
			lx.pos++
		}
	}
}

func (p *luaParser) lex() luaToken {
	lx := &p.lx
	for {
		if lx.pos >= len(lx.src) {
			return luaToken{t: tkEOS}
		}
		c := lx.src[lx.pos]
		switch {
		case c == '\n' || c == '\r':
			p.newline()
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			lx.pos++
		case c == '-':
			if lx.pos+1 >= len(lx.src) || lx.src[lx.pos+1] != '-' {
				lx.pos++
				return luaToken{t: '-'}
			}
			lx.pos += 2
			if lx.pos < len(lx.src) && lx.src[lx.pos] == '[' {
				if lvl := p.longLevel(); lvl >= 0 {
					p.readLong(lvl, false)
					continue
				}
			}
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' && lx.src[lx.pos] != '\r' {
				lx.pos++
			}
		case c == '[':
			lvl := p.longLevel()
			if lvl >= 0 {
				s := p.readLong(lvl, true)
				return luaToken{t: tkString, text: s}
			}
			lx.pos++
			if lvl == -2 {
				p.lexError("invalid long string delimiter", tkString, "[")
			}
			return luaToken{t: '['}
		case c == '=' || c == '<' || c == '>' || c == '~':
			lx.pos++
			if lx.pos < len(lx.src) && lx.src[lx.pos] == '=' {
				lx.pos++
				switch c {
				case '=':
					return luaToken{t: tkEq}
				case '<':
					return luaToken{t: tkLE}
				case '>':
					return luaToken{t: tkGE}
				}
				return luaToken{t: tkNE}
			}
			return luaToken{t: int(c)}
		case c == '"' || c == '\'':
			return p.readString(c)
		case c == '.':
			if strings.HasPrefix(lx.src[lx.pos:], "...") {
				lx.pos += 3
				return luaToken{t: tkDots}
			}
			if strings.HasPrefix(lx.src[lx.pos:], "..") {
				lx.pos += 2
				return luaToken{t: tkConcat}
			}
			if lx.pos+1 < len(lx.src) && isDigit(lx.src[lx.pos+1]) {
				return p.readNumber()
			}
			lx.pos++
			return luaToken{t: '.'}
		case isDigit(c):
			return p.readNumber()
		case isAlpha(c):
			start := lx.pos
			for lx.pos < len(lx.src) && (isAlpha(lx.src[lx.pos]) || isDigit(lx.src[lx.pos])) {
				lx.pos++
			}
			w := lx.src[start:lx.pos]
			for i, r := range luaReserved {
				if r == w {
					return luaToken{t: tkAnd + i}
				}
			}
			return luaToken{t: tkName, text: w}
		default:
			lx.pos++
			return luaToken{t: int(c)}
		}
	}
}

func (p *luaParser) readNumber() luaToken {
	lx := &p.lx
	start := lx.pos
	for lx.pos < len(lx.src) && (isDigit(lx.src[lx.pos]) || lx.src[lx.pos] == '.') {
		lx.pos++
	}
	if lx.pos < len(lx.src) && (lx.src[lx.pos] == 'e' || lx.src[lx.pos] == 'E') {
		lx.pos++
		if lx.pos < len(lx.src) && (lx.src[lx.pos] == '+' || lx.src[lx.pos] == '-') {
			lx.pos++
		}
	}
	for lx.pos < len(lx.src) && (isAlpha(lx.src[lx.pos]) || isDigit(lx.src[lx.pos])) {
		lx.pos++
	}
	text := lx.src[start:lx.pos]
	f, ok := StrToNumber(text)
	if !ok {
		p.lexError("malformed number", tkNumber, text)
	}
	if strings.ContainsAny(text, "pP") && !math.IsInf(f, 0) {
		// A hex numeral reaches 'p' only through its exponent.
		p.numFix = append(p.numFix, numFix{start, lx.pos, strconv.FormatFloat(f, 'g', -1, 64)})
	}
	return luaToken{t: tkNumber, text: text}
}

func (p *luaParser) readString(q byte) luaToken {
	lx := &p.lx
	buf := []byte{q} // what Lua's lexer has saved so far, escapes decoded
	lx.pos++
	for {
		if lx.pos >= len(lx.src) {
			p.lexError("unfinished string", tkEOS, "")
		}
		c := lx.src[lx.pos]
		switch {
		case c == q:
			lx.pos++
			buf = append(buf, q)
			return luaToken{t: tkString, text: string(buf)}
		case c == '\n' || c == '\r':
			p.lexError("unfinished string", tkString, string(buf))
		case c == '\\':
			lx.pos++
			if lx.pos >= len(lx.src) {
				continue
			}
			e := lx.src[lx.pos]
			switch e {
			case '\n', '\r':
				p.newline()
				buf = append(buf, '\n')
				continue
			case 'a':
				buf = append(buf, '\a')
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'v':
				buf = append(buf, '\v')
			default:
				if isDigit(e) {
					v, n := 0, 0
					for n < 3 && lx.pos < len(lx.src) && isDigit(lx.src[lx.pos]) {
						v = v*10 + int(lx.src[lx.pos]-'0')
						lx.pos++
						n++
					}
					if v > 255 {
						p.lexError("escape sequence too large", tkString, string(buf))
					}
					buf = append(buf, byte(v))
					continue
				}
				buf = append(buf, e)
			}
			lx.pos++
		default:
			buf = append(buf, c)
			lx.pos++
		}
	}
}

func (p *luaParser) check(t int) {
	if p.tok.t != t {
		p.errorExpected(t)
	}
}

func (p *luaParser) checkNext(t int) {
	p.check(t)
	p.next()
}

func (p *luaParser) testNext(t int) bool {
	if p.tok.t == t {
		p.next()
		return true
	}
	return false
}

func (p *luaParser) checkMatch(what, who, where int) {
	if p.tok.t != what {
		if where == p.lx.line {
			p.errorExpected(what)
		}
		p.fail(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", tokenName(what), tokenName(who), where), &p.tok)
	}
	p.next()
}

func (p *luaParser) checkName() {
	p.check(tkName)
	p.next()
}

func blockFollow(t int) bool {
	switch t {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

// block is lparser.c's chunk.
func (p *luaParser) block(depth int) {
	p.enterLevel()
	for !blockFollow(p.tok.t) {
		last := p.tok.t == tkReturn || p.tok.t == tkBreak
		p.statement()
		p.testNext(';')
		if last {
			break
		}
	}
	p.leaveLevel()
}

func (p *luaParser) statement() {
	line := p.lx.line
	switch p.tok.t {
	case tkIf:
		p.next()
		p.expr()
		p.checkNext(tkThen)
		p.block(0)
		for p.tok.t == tkElseif {
			p.next()
			p.expr()
			p.checkNext(tkThen)
			p.block(0)
		}
		if p.testNext(tkElse) {
			p.block(0)
		}
		p.checkMatch(tkEnd, tkIf, line)
	case tkWhile:
		p.next()
		p.expr()
		p.checkNext(tkDo)
		p.loopBlock()
		p.checkMatch(tkEnd, tkWhile, line)
	case tkDo:
		p.next()
		p.block(0)
		p.checkMatch(tkEnd, tkDo, line)
	case tkFor:
		p.next()
		p.checkName()
		switch p.tok.t {
		case '=':
			p.next()
			p.expr()
			p.checkNext(',')
			p.expr()
			if p.testNext(',') {
				p.expr()
			}
		case ',', tkIn:
			for p.testNext(',') {
				p.checkName()
			}
			p.checkNext(tkIn)
			p.exprList()
		default:
			p.fail("'=' or 'in' expected", &p.tok)
		}
		p.checkNext(tkDo)
		p.loopBlock()
		p.checkMatch(tkEnd, tkFor, line)
	case tkRepeat:
		p.next()
		p.loopBlock()
		p.checkMatch(tkUntil, tkRepeat, line)
		p.expr()
	case tkFunction:
		p.next()
		p.checkName()
		for p.testNext('.') {
			p.checkName()
		}
		method := false
		if p.testNext(':') {
			p.checkName()
			method = true
		}
		p.body(method, line)
	case tkLocal:
		p.next()
		if p.testNext(tkFunction) {
			p.checkName()
			p.body(false, line)
			return
		}
		p.checkName()
		for p.testNext(',') {
			p.checkName()
		}
		if p.testNext('=') {
			p.exprList()
		}
	case tkReturn:
		p.next()
		if !blockFollow(p.tok.t) && p.tok.t != ';' {
			p.exprList()
		}
	case tkBreak:
		p.next()
		if len(p.loops) == 0 || p.loops[len(p.loops)-1] == 0 {
			p.fail("no loop to break", &p.tok)
		}
	default:
		kind := p.suffixedExp()
		if kind == expCall {
			return
		}
		for nvars := 1; ; nvars++ {
			if kind != expVar {
				p.fail("syntax error", &p.tok)
			}
			if !p.testNext(',') {
				break
			}
			kind = p.suffixedExp()
			// restassign's luaY_checklimit.
			if limit := MaxCCalls - p.level; nvars > limit {
				if fl := p.funcLines[len(p.funcLines)-1]; fl == 0 {
					p.fail(fmt.Sprintf("main function has more than %d variables in assignment", limit), nil)
				} else {
					p.fail(fmt.Sprintf("function at line %d has more than %d variables in assignment", fl, limit), nil)
				}
			}
		}
		p.checkNext('=')
		p.exprList()
	}
}

func (p *luaParser) loopBlock() {
	if len(p.loops) == 0 {
		p.loops = append(p.loops, 0)
	}
	p.loops[len(p.loops)-1]++
	p.block(0)
	p.loops[len(p.loops)-1]--
}

func (p *luaParser) body(method bool, line int) {
	p.checkNext('(')
	vararg := false
	if p.tok.t != ')' {
		for {
			switch p.tok.t {
			case tkName:
				p.next()
			case tkDots:
				p.next()
				vararg = true
			default:
				p.fail("<name> or '...' expected", &p.tok)
			}
			if vararg || !p.testNext(',') {
				break
			}
		}
	}
	p.checkNext(')')
	p.vararg = append(p.vararg, vararg)
	p.loops = append(p.loops, 0)
	p.funcLines = append(p.funcLines, line)
	p.block(0)
	p.funcLines = p.funcLines[:len(p.funcLines)-1]
	p.loops = p.loops[:len(p.loops)-1]
	p.vararg = p.vararg[:len(p.vararg)-1]
	p.checkMatch(tkEnd, tkFunction, line)
}

const (
	expOther = iota
	expVar
	expCall
)

func (p *luaParser) primaryExp() int {
	switch p.tok.t {
	case tkName:
		p.next()
		return expVar
	case '(':
		line := p.lx.line
		p.next()
		p.expr()
		p.checkMatch(')', '(', line)
		return expOther
	}
	p.fail("unexpected symbol", &p.tok)
	return expOther
}

func (p *luaParser) suffixedExp() int {
	line := p.lx.line
	kind := p.primaryExp()
	for {
		switch p.tok.t {
		case '.':
			p.next()
			p.checkName()
			kind = expVar
		case '[':
			p.next()
			p.expr()
			p.checkNext(']')
			kind = expVar
		case ':':
			p.next()
			p.checkName()
			p.funcArgs(line)
			kind = expCall
		case '(', tkString, '{':
			p.funcArgs(line)
			kind = expCall
		default:
			return kind
		}
	}
}

func (p *luaParser) funcArgs(line int) {
	switch p.tok.t {
	case '(':
		if line != p.lx.line {
			p.fail("ambiguous syntax (function call x new statement)", &p.tok)
		}
		p.next()
		if p.tok.t != ')' {
			p.exprList()
		}
		p.checkMatch(')', '(', line)
	case '{':
		p.constructor()
	case tkString:
		p.next()
	default:
		p.fail("function arguments expected", &p.tok)
	}
}

func (p *luaParser) constructor() {
	line := p.lx.line
	p.checkNext('{')
	for p.tok.t != '}' {
		switch {
		case p.tok.t == tkName && p.peek().t == '=':
			p.next()
			p.next()
			p.expr()
		case p.tok.t == '[':
			p.next()
			p.expr()
			p.checkNext(']')
			p.checkNext('=')
			p.expr()
		default:
			p.expr()
		}
		if !p.testNext(',') && !p.testNext(';') {
			break
		}
	}
	p.checkMatch('}', '{', line)
}

func (p *luaParser) exprList() {
	p.expr()
	for p.testNext(',') {
		p.expr()
	}
}

func (p *luaParser) simpleExp() {
	switch p.tok.t {
	case tkNumber, tkString, tkNil, tkTrue, tkFalse:
		p.next()
	case tkDots:
		if len(p.vararg) == 0 || !p.vararg[len(p.vararg)-1] {
			p.fail("cannot use '...' outside a vararg function", &p.tok)
		}
		p.next()
	case '{':
		p.constructor()
	case tkFunction:
		line := p.lx.line
		p.next()
		p.body(false, line)
	default:
		p.suffixedExp()
	}
}

func binaryPriority(t int) (int, int) {
	switch t {
	case '+', '-':
		return 6, 6
	case '*', '/', '%':
		return 7, 7
	case '^':
		return 10, 9
	case tkConcat:
		return 5, 4
	case tkEq, tkNE, '<', tkLE, '>', tkGE:
		return 3, 3
	case tkAnd:
		return 2, 2
	case tkOr:
		return 1, 1
	}
	return -1, -1
}

func (p *luaParser) subExpr(limit int) {
	p.enterLevel()
	if p.tok.t == tkNot || p.tok.t == '-' || p.tok.t == '#' {
		p.next()
		p.subExpr(8)
	} else {
		p.simpleExp()
	}
	for {
		l, r := binaryPriority(p.tok.t)
		if l <= limit {
			break
		}
		p.next()
		p.subExpr(r)
	}
	p.leaveLevel()
}

func (p *luaParser) expr() { p.subExpr(0) }
