package luaengine

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"unsafe"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/internal/buildinfo"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// Log levels (redis.LOG_*), replication flags (redis.REPL_*).
const (
	LogDebug   = 0
	LogVerbose = 1
	LogNotice  = 2
	LogWarning = 3
)

func (e *Engine) redisTable() *lua.LTable {
	L := e.L
	t := L.CreateTable(0, 32)
	fns := map[string]lua.LGFunction{
		"call":               e.redisCall,
		"pcall":              e.redisPcall,
		"log":                e.redisLog,
		"setresp":            e.redisSetresp,
		"sha1hex":            redisSha1hex,
		"error_reply":        redisErrorReply,
		"status_reply":       redisStatusReply,
		"set_repl":           e.redisSetRepl,
		"acl_check_cmd":      e.redisACLCheckCmd,
		"breakpoint":         redisBreakpoint,
		"debug":              redisDebug,
		"replicate_commands": redisReplicateCommands,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	nums := map[string]float64{
		"LOG_DEBUG": LogDebug, "LOG_VERBOSE": LogVerbose, "LOG_NOTICE": LogNotice, "LOG_WARNING": LogWarning,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
		"REDIS_VERSION_NUM": buildinfo.RedisVersionNum,
	}
	for name, v := range nums {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(buildinfo.RedisVersion))
	return t
}

// errorTable is luaPushErrorBuff: "-CODE msg" keeps its code, a bare
// message gets "ERR"; the table is {err="CODE msg"}.
func errorTable(L *lua.LState, buf string) *lua.LTable {
	var code, msg string
	if len(buf) > 0 && buf[0] == '-' {
		sp := -1
		for i := 1; i < len(buf); i++ {
			if buf[i] == ' ' {
				sp = i
				break
			}
		}
		if sp < 0 {
			code, msg = "ERR", buf[1:]
		} else {
			code, msg = buf[1:sp], buf[sp+1:]
		}
	} else {
		code, msg = "ERR", buf
	}
	for len(msg) > 0 && (msg[len(msg)-1] == '\r' || msg[len(msg)-1] == '\n') {
		msg = msg[:len(msg)-1]
	}
	for len(msg) > 0 && (msg[0] == '\r' || msg[0] == '\n') {
		msg = msg[1:]
	}
	t := L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(code+" "+msg))
	return t
}

// raise throws an error table built from msg (luaPushError + luaError).
func raise(L *lua.LState, msg string) {
	L.Error(errorTable(L, msg), 0)
}

func (e *Engine) redisCall(L *lua.LState) int  { return e.redisGeneric(L, true) }
func (e *Engine) redisPcall(L *lua.LState) int { return e.redisGeneric(L, false) }

// redisGeneric is luaRedisGenericCommand.
func (e *Engine) redisGeneric(L *lua.LState, raiseErr bool) int {
	run := e.run
	if run == nil {
		raise(L, "redis.call/pcall can only be called inside a script invocation")
	}
	n := L.GetTop()
	if n == 0 {
		return e.callError(L, "Please specify at least one argument for this redis lib call", raiseErr)
	}
	args := e.argbuf[:0]
	// Number arguments are formatted into numbuf. An argument's slice
	// stays valid when numbuf grows: the old array keeps its bytes.
	nb := e.numbuf[:0]
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args = append(args, unsafe.Slice(unsafe.StringData(string(v)), len(v)))
		case lua.LNumber:
			from := len(nb)
			nb = appendArg(nb, float64(v))
			args = append(args, nb[from:len(nb):len(nb)])
		default:
			e.argbuf = args[:0]
			return e.callError(L, "Lua redis lib command arguments must be strings or integers", raiseErr)
		}
	}
	e.numbuf = nb[:0]
	reply := e.callHost(run, args)
	for i := range args {
		args[i] = nil
	}
	e.argbuf = args[:0]
	L.SetTop(0)
	e.charge(L, stepsPerCall)
	e.chargeBytes(L, len(reply))
	v, _ := e.parseReply(reply, 0)
	e.charge(L, 0) // the tables of the reply (parseReply counts them)
	if msg := e.replyErr; msg != "" {
		e.replyErr = ""
		return e.callError(L, msg, raiseErr)
	}
	if raiseErr && len(reply) > 0 && reply[0] == '-' {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// callHost runs a command for redis.call. A Go panic in it (a bug in a
// command) is logged and becomes the command's error reply, so the
// script, not the process, fails.
func (e *Engine) callHost(run *Run, args [][]byte) (reply []byte) {
	defer func() {
		if r := recover(); r != nil {
			e.recovered(run, r)
			reply = []byte("-ERR internal error running the command\r\n")
		}
	}()
	return run.Call(args, run.Resp)
}

// callError is an error of redis.call/pcall itself (luaArgsToRedisArgv),
// which no command counted: unlike a command's error it has no
// ignore_error_stats_update, so the script's reply counts it.
func (e *Engine) callError(L *lua.LState, msg string, raiseErr bool) int {
	t := errorTable(L, msg)
	if raiseErr {
		L.Error(t, 0)
	}
	L.SetTop(0)
	L.Push(t)
	return 1
}

func redisSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, "wrong number of arguments")
	}
	s, _ := luaString(L.Get(1))
	sum := sha1.Sum([]byte(s))
	L.Push(lua.LString(hex.EncodeToString(sum[:])))
	return 1
}

func redisErrorReply(L *lua.LState) int {
	s, ok := L.Get(-1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	msg := string(s)
	if len(msg) == 0 || msg[0] != '-' {
		msg = "-" + msg
	}
	L.Push(errorTable(L, msg))
	return 1
}

func redisStatusReply(L *lua.LState) int {
	s, ok := L.Get(-1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

func (e *Engine) redisLog(L *lua.LState) int {
	argc := L.GetTop()
	if argc < 2 {
		raise(L, "redis.log() requires two arguments or more.")
	}
	lv, ok := toNumber(L.Get(1))
	if !ok {
		raise(L, "First argument must be a number (log level).")
	}
	level := int(lv)
	if level < LogDebug || level > LogWarning {
		raise(L, "Invalid debug level.")
	}
	run := e.run
	if run == nil || run.Log == nil || (run.Verbosity != nil && level < run.Verbosity()) {
		return 0
	}
	var msg []byte
	for j := 2; j <= argc; j++ {
		if s, ok := luaString(L.Get(j)); ok {
			if j != 2 {
				msg = append(msg, ' ')
			}
			msg = append(msg, s...)
		}
	}
	run.Log(level, string(msg))
	return 0
}

// toNumber is lua_isnumber/lua_tonumber: numbers and numeric strings.
func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return lua51.StrToNumber(string(x))
	}
	return 0, false
}

func (e *Engine) redisSetresp(L *lua.LState) int {
	if e.run == nil {
		raise(L, "redis.setresp can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raise(L, "redis.setresp() requires one argument.")
	}
	n, _ := toNumber(L.Get(1))
	r := int(toInt64(n))
	if r != 2 && r != 3 {
		raise(L, "RESP version must be 2 or 3.")
	}
	e.run.Resp = r
	return 0
}

func (e *Engine) redisSetRepl(L *lua.LState) int {
	if e.run == nil {
		raise(L, "redis.set_repl can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raise(L, "redis.set_repl() requires two arguments.")
	}
	n, _ := toNumber(L.Get(1))
	flags := int(toInt64(n))
	if flags&^3 != 0 {
		raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	e.run.ReplFlags = flags
	return 0
}

func (e *Engine) redisACLCheckCmd(L *lua.LState) int {
	if e.run == nil {
		raise(L, "redis.acl_check_cmd can only be called inside a script invocation")
	}
	n := L.GetTop()
	if n == 0 {
		raise(L, "Please specify at least one argument for this redis lib call")
	}
	args := make([][]byte, 0, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args = append(args, []byte(v))
		case lua.LNumber:
			args = append(args, appendArg(nil, float64(v)))
		default:
			raise(L, "Lua redis lib command arguments must be strings or integers")
		}
	}
	if e.run.Exists == nil || !e.run.Exists(args) {
		raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LTrue)
	return 1
}

func redisBreakpoint(L *lua.LState) int {
	L.Push(lua.LFalse)
	return 1
}

func redisDebug(L *lua.LState) int { return 0 }

func redisReplicateCommands(L *lua.LState) int {
	L.Push(lua.LTrue)
	return 1
}

// mathRandom is Redis's math.random over redisLrand48.
func (e *Engine) mathRandom(L *lua.LState) int {
	r := float64(e.rand.next()%lrand48Max) / float64(lrand48Max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := checkInt(L, 1, "random")
		if !(1 <= u) {
			argError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := checkInt(L, 1, "random")
		u := checkInt(L, 2, "random")
		if !(l <= u) {
			argError(L, 2, "random", "interval is empty")
		}
		// C's int arithmetic: u-l+1 wraps.
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (e *Engine) mathRandomseed(L *lua.LState) int {
	e.rand.seed(checkInt(L, 1, "randomseed"))
	return 0
}
