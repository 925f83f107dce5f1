package commands

import (
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/internal/glob"
)

// Config holds the settings lockkv honours or reports. CONFIG GET/SET read
// and write it through the settings table below; every field here has
// Redis 7.0's built-in default (no config file) in NewConfig.
type Config struct {
	Databases       int
	RequirePass     string
	MaxClients      int
	NotifyFlags     NotifyClass
	ProtoMaxBulkLen int64 // proto-max-bulk-len
	Timeout         int   // idle client timeout, seconds
	Hz              int
	// ReadMode is how a replicated server serves reads: ReadLinearizable
	// (the leader confirms it leads), ReadLease (the leader answers from
	// its state) or ReadStale (any node answers from its state).
	ReadMode string
	// SentinelMasterName is the master name SENTINEL answers for in
	// cluster mode (get-master-addr-by-name and the like).
	SentinelMasterName string
	Port               int // reported by CONFIG GET port and INFO

	// Encoding thresholds (OBJECT ENCODING follows them).
	HashMaxListpackEntries int // hash-max-listpack-entries
	HashMaxListpackValue   int // hash-max-listpack-value
	SetMaxIntsetEntries    int // set-max-intset-entries
	ZSetMaxListpackEntries int // zset-max-listpack-entries
	ZSetMaxListpackValue   int // zset-max-listpack-value
	ListMaxListpackSize    int // list-max-listpack-size
	ListCompressDepth      int // list-compress-depth

	// LuaTimeLimit is busy-reply-threshold (lua-time-limit), milliseconds.
	LuaTimeLimit int64

	// TrackingTableMaxKeys is tracking-table-max-keys: past it, client-side
	// caching forgets keys (invalidating them); 0 is no limit.
	TrackingTableMaxKeys int

	// other holds the settings lockkv accepts and reports without acting
	// on them (maxmemory, appendonly, save, ...), by canonical name.
	other map[string]string
}

// NewConfig returns Redis 7.0's defaults. (hash-max-listpack-entries is
// 512 in the 7.0 binary; the sample redis.conf says 128.)
func NewConfig() *Config {
	c := &Config{
		Databases:              16,
		MaxClients:             10000,
		ProtoMaxBulkLen:        512 * 1024 * 1024,
		Hz:                     10,
		ReadMode:               ReadLinearizable,
		SentinelMasterName:     "mymaster",
		Port:                   6379,
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		ListMaxListpackSize:    -2,
		LuaTimeLimit:           5000,
		TrackingTableMaxKeys:   1000000,
		other:                  map[string]string{},
	}
	for _, s := range settings {
		if s.read == nil {
			c.other[s.name] = s.dflt
		}
	}
	if wd, err := os.Getwd(); err == nil {
		c.other["dir"] = wd
	}
	return c
}

// Get returns the value CONFIG GET reports for a setting (canonical name
// or alias), and whether it exists.
func (c *Config) Get(name string) (string, bool) {
	s := lookupSetting(name)
	if s == nil {
		return "", false
	}
	return s.get(c), true
}

// Set changes one setting as CONFIG SET would; the error is the text after
// "possibly related to argument ... - ".
func (c *Config) Set(name, value string) (ok bool, errText string) {
	s := lookupSetting(name)
	if s == nil {
		return false, "unknown option"
	}
	if s.flags&cfgImmutable != 0 {
		return false, "can't set immutable config"
	}
	if s.flags&cfgProtected != 0 {
		return false, "can't set protected config"
	}
	if msg := s.set(c, value); msg != "" {
		return false, msg
	}
	return true, ""
}

// settings table

type settingKind int

const (
	kindString settingKind = iota
	kindBool
	kindInt    // integer within [min, max]
	kindMemory // memory value (1gb, 10mb, ...) within [min, max]
	kindEnum
	kindSpecial // validated by check
)

const (
	cfgImmutable = 1 << iota // "can't set immutable config"
	cfgProtected             // "can't set protected config"
)

type setting struct {
	name, alias string
	kind        settingKind
	dflt        string
	min, max    int64
	enum        []string
	flags       int
	// check validates special values; it returns the error text or "".
	check func(v string) string
	// apply, when set, stores a validated value into Config fields.
	apply func(c *Config, v string)
	// read, when set, renders the value from Config fields.
	read func(c *Config) string
}

const (
	intMin   = math.MinInt32
	intMax   = math.MaxInt32
	longMax  = math.MaxInt64
	llongMin = math.MinInt64
	uintMax  = math.MaxUint32
)

// boundInt is an int setting stored in a Config field.
func boundInt(name, alias string, min, max int64, f func(c *Config) *int) *setting {
	return &setting{name: name, alias: alias, kind: kindInt, min: min, max: max,
		read:  func(c *Config) string { return strconv.Itoa(*f(c)) },
		apply: func(c *Config, v string) { n, _ := strconv.ParseInt(v, 10, 64); *f(c) = int(n) }}
}

var maxmemoryPolicies = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}

var settings = []*setting{
	{name: "databases", kind: kindInt, flags: cfgImmutable, read: func(c *Config) string { return strconv.Itoa(c.Databases) }},
	{name: "requirepass", kind: kindString, read: func(c *Config) string { return c.RequirePass },
		apply: func(c *Config, v string) { c.RequirePass = v }},
	boundInt("maxclients", "", 1, uintMax, func(c *Config) *int { return &c.MaxClients }),
	boundInt("tracking-table-max-keys", "", 0, longMax, func(c *Config) *int { return &c.TrackingTableMaxKeys }),
	{name: "notify-keyspace-events", kind: kindSpecial,
		check: func(v string) string {
			if _, ok := ParseNotifyFlags(v); !ok {
				return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
			}
			return ""
		},
		read:  func(c *Config) string { return NotifyFlagsString(c.NotifyFlags) },
		apply: func(c *Config, v string) { c.NotifyFlags, _ = ParseNotifyFlags(v) }},
	{name: "proto-max-bulk-len", kind: kindMemory, min: 1024 * 1024, max: longMax,
		read:  func(c *Config) string { return strconv.FormatInt(c.ProtoMaxBulkLen, 10) },
		apply: func(c *Config, v string) { c.ProtoMaxBulkLen, _ = parseMemory(v) }},
	boundInt("timeout", "", 0, intMax, func(c *Config) *int { return &c.Timeout }),
	{name: "hz", kind: kindInt, min: 0, max: intMax,
		read: func(c *Config) string { return strconv.Itoa(c.Hz) },
		apply: func(c *Config, v string) {
			n, _ := strconv.Atoi(v)
			c.Hz = min(max(n, 1), 500)
		}},
	boundInt("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, longMax, func(c *Config) *int { return &c.HashMaxListpackEntries }),
	boundInt("hash-max-listpack-value", "hash-max-ziplist-value", 0, longMax, func(c *Config) *int { return &c.HashMaxListpackValue }),
	boundInt("set-max-intset-entries", "", 0, longMax, func(c *Config) *int { return &c.SetMaxIntsetEntries }),
	boundInt("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, longMax, func(c *Config) *int { return &c.ZSetMaxListpackEntries }),
	boundInt("zset-max-listpack-value", "zset-max-ziplist-value", 0, longMax, func(c *Config) *int { return &c.ZSetMaxListpackValue }),
	boundInt("list-max-listpack-size", "list-max-ziplist-size", intMin, intMax, func(c *Config) *int { return &c.ListMaxListpackSize }),
	boundInt("list-compress-depth", "", 0, intMax, func(c *Config) *int { return &c.ListCompressDepth }),
	{name: "busy-reply-threshold", alias: "lua-time-limit", kind: kindInt, min: 0, max: longMax,
		read:  func(c *Config) string { return strconv.FormatInt(c.LuaTimeLimit, 10) },
		apply: func(c *Config, v string) { c.LuaTimeLimit, _ = strconv.ParseInt(v, 10, 64) }},
	{name: "port", kind: kindInt, min: 0, max: 65535, read: func(c *Config) string { return strconv.Itoa(c.Port) },
		apply: func(c *Config, v string) { c.Port, _ = strconv.Atoi(v) }},

	// Accepted and reported, with Redis's defaults and validation.
	{name: "maxmemory", kind: kindMemory, dflt: "0", min: 0, max: longMax},
	{name: "maxmemory-policy", kind: kindEnum, dflt: "noeviction", enum: maxmemoryPolicies},
	{name: "maxmemory-samples", kind: kindInt, dflt: "5", min: 1, max: intMax},
	{name: "maxmemory-eviction-tenacity", kind: kindInt, dflt: "10", min: 0, max: 100},
	{name: "maxmemory-clients", kind: kindMemory, dflt: "0", min: 0, max: longMax},
	{name: "appendonly", kind: kindBool, dflt: "no"},
	{name: "appendfsync", kind: kindEnum, dflt: "everysec", enum: []string{"everysec", "always", "no"}},
	{name: "appendfilename", kind: kindString, dflt: "appendonly.aof", flags: cfgImmutable},
	{name: "appenddirname", kind: kindString, dflt: "appendonlydir", flags: cfgImmutable},
	{name: "no-appendfsync-on-rewrite", kind: kindBool, dflt: "no"},
	{name: "auto-aof-rewrite-percentage", kind: kindInt, dflt: "100", min: 0, max: intMax},
	{name: "auto-aof-rewrite-min-size", kind: kindMemory, dflt: "67108864", min: 0, max: longMax},
	{name: "aof-use-rdb-preamble", kind: kindBool, dflt: "yes"},
	{name: "aof-load-truncated", kind: kindBool, dflt: "yes"},
	{name: "aof-timestamp-enabled", kind: kindBool, dflt: "no"},
	{name: "save", kind: kindSpecial, dflt: "", check: checkSave},
	{name: "stop-writes-on-bgsave-error", kind: kindBool, dflt: "yes"},
	{name: "rdbcompression", kind: kindBool, dflt: "yes"},
	{name: "rdbchecksum", kind: kindBool, dflt: "yes"},
	{name: "dbfilename", kind: kindString, dflt: "dump.rdb", flags: cfgProtected},
	{name: "dir", kind: kindString, dflt: "/", flags: cfgProtected},
	{name: "bind", kind: kindString, dflt: "127.0.0.1"},
	{name: "protected-mode", kind: kindBool, dflt: "yes"},
	{name: "tcp-backlog", kind: kindInt, dflt: "511", flags: cfgImmutable},
	{name: "tcp-keepalive", kind: kindInt, dflt: "300", min: 0, max: intMax},
	{name: "unixsocket", kind: kindString, dflt: "", flags: cfgImmutable},
	{name: "daemonize", kind: kindBool, dflt: "no", flags: cfgImmutable},
	{name: "supervised", kind: kindEnum, dflt: "no", enum: []string{"upstart", "systemd", "auto", "no"}, flags: cfgImmutable},
	{name: "pidfile", kind: kindString, dflt: "", flags: cfgImmutable},
	{name: "loglevel", kind: kindEnum, dflt: "notice", enum: []string{"debug", "verbose", "notice", "warning"}},
	{name: "logfile", kind: kindString, dflt: "", flags: cfgImmutable},
	{name: "syslog-enabled", kind: kindBool, dflt: "no", flags: cfgImmutable},
	{name: "always-show-logo", kind: kindBool, dflt: "no", flags: cfgImmutable},
	{name: "slowlog-log-slower-than", kind: kindInt, dflt: "10000", min: -1, max: longMax},
	{name: "slowlog-max-len", kind: kindInt, dflt: "128", min: 0, max: longMax},
	{name: "latency-monitor-threshold", kind: kindInt, dflt: "0", min: 0, max: longMax},
	{name: "latency-tracking", kind: kindBool, dflt: "yes"},
	{name: "activerehashing", kind: kindBool, dflt: "yes"},
	{name: "activedefrag", kind: kindBool, dflt: "no"},
	{name: "active-expire-effort", kind: kindInt, dflt: "1", min: 1, max: 10},
	{name: "dynamic-hz", kind: kindBool, dflt: "yes"},
	{name: "lazyfree-lazy-eviction", kind: kindBool, dflt: "no"},
	{name: "lazyfree-lazy-expire", kind: kindBool, dflt: "no"},
	{name: "lazyfree-lazy-server-del", kind: kindBool, dflt: "no"},
	{name: "lazyfree-lazy-user-del", kind: kindBool, dflt: "no"},
	{name: "lazyfree-lazy-user-flush", kind: kindBool, dflt: "no"},
	{name: "lfu-log-factor", kind: kindInt, dflt: "10", min: 0, max: intMax},
	{name: "lfu-decay-time", kind: kindInt, dflt: "1", min: 0, max: intMax},
	{name: "stream-node-max-bytes", kind: kindMemory, dflt: "4096", min: 0, max: longMax},
	{name: "stream-node-max-entries", kind: kindInt, dflt: "100", min: 0, max: longMax},
	{name: "hll-sparse-max-bytes", kind: kindMemory, dflt: "3000", min: 0, max: longMax},
	{name: "tracking-table-max-keys", kind: kindInt, dflt: "1000000", min: 0, max: longMax},
	{name: "client-query-buffer-limit", kind: kindMemory, dflt: "1073741824", min: 1024 * 1024, max: longMax},
	{name: "client-output-buffer-limit", kind: kindSpecial, dflt: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", check: checkOutputBufferLimit, apply: applyOutputBufferLimit},
	{name: "replica-read-only", alias: "slave-read-only", kind: kindBool, dflt: "yes"},
	{name: "replica-serve-stale-data", alias: "slave-serve-stale-data", kind: kindBool, dflt: "yes"},
	{name: "replica-priority", alias: "slave-priority", kind: kindInt, dflt: "100", min: 0, max: intMax},
	{name: "replica-lazy-flush", alias: "slave-lazy-flush", kind: kindBool, dflt: "no"},
	{name: "replica-ignore-maxmemory", alias: "slave-ignore-maxmemory", kind: kindBool, dflt: "yes"},
	{name: "min-replicas-to-write", alias: "min-slaves-to-write", kind: kindInt, dflt: "0", min: 0, max: intMax},
	{name: "min-replicas-max-lag", alias: "min-slaves-max-lag", kind: kindInt, dflt: "10", min: 0, max: intMax},
	{name: "replicaof", alias: "slaveof", kind: kindString, dflt: "", flags: cfgImmutable},
	{name: "masterauth", kind: kindString, dflt: ""},
	{name: "masteruser", kind: kindString, dflt: ""},
	{name: "repl-backlog-size", kind: kindMemory, dflt: "1048576", min: 1, max: longMax},
	{name: "repl-backlog-ttl", kind: kindInt, dflt: "3600", min: 0, max: intMax},
	{name: "repl-timeout", kind: kindInt, dflt: "60", min: 1, max: intMax},
	{name: "repl-diskless-sync", kind: kindBool, dflt: "yes"},
	{name: "cluster-enabled", kind: kindBool, dflt: "no", flags: cfgImmutable},
	{name: "io-threads", kind: kindInt, dflt: "1", flags: cfgImmutable},
	{name: "enable-debug-command", kind: kindEnum, dflt: "no", flags: cfgImmutable},
	{name: "enable-protected-configs", kind: kindEnum, dflt: "no", flags: cfgImmutable},
	{name: "enable-module-command", kind: kindEnum, dflt: "no", flags: cfgImmutable},
	{name: "shutdown-timeout", kind: kindInt, dflt: "10", min: 0, max: intMax},
	{name: "oom-score-adj", kind: kindEnum, dflt: "no", enum: []string{"no", "yes", "relative", "absolute"}},
	{name: "acllog-max-len", kind: kindInt, dflt: "128", min: 0, max: longMax},
	{name: "aclfile", kind: kindString, dflt: "", flags: cfgImmutable},
	{name: "acl-pubsub-default", kind: kindEnum, dflt: "resetchannels", enum: []string{"allchannels", "resetchannels"}},
	{name: "maxmemory-clients", kind: kindMemory, dflt: "0", min: 0, max: longMax},
}

var settingIndex = func() map[string]*setting {
	m := map[string]*setting{}
	seen := map[string]bool{}
	out := settings[:0]
	for _, s := range settings {
		if seen[s.name] {
			continue
		}
		seen[s.name] = true
		out = append(out, s)
		m[s.name] = s
		if s.alias != "" {
			m[s.alias] = s
		}
	}
	settings = out
	return m
}()

func lookupSetting(name string) *setting { return settingIndex[strings.ToLower(name)] }

func (s *setting) get(c *Config) string {
	if s.read != nil {
		return s.read(c)
	}
	return c.other[s.name]
}

// set validates v and stores it; it returns Redis's error text or "".
func (s *setting) set(c *Config, v string) string {
	switch s.kind {
	case kindBool:
		lv := strings.ToLower(v)
		if lv != "yes" && lv != "no" {
			return "argument must be 'yes' or 'no'"
		}
		v = lv
	case kindInt:
		n, ok := ParseInt([]byte(v)) // string2ll: no '+', no spaces
		if !ok {
			return "argument couldn't be parsed into an integer"
		}
		if n < s.min || n > s.max {
			return "argument must be between " + strconv.FormatInt(s.min, 10) + " and " + strconv.FormatInt(s.max, 10) + " inclusive"
		}
		v = strconv.FormatInt(n, 10)
	case kindMemory:
		n, ok := parseMemory(v)
		if !ok {
			return "argument must be a memory value"
		}
		if n < s.min || n > s.max {
			return "argument must be between " + strconv.FormatInt(s.min, 10) + " and " + strconv.FormatInt(s.max, 10) + " inclusive"
		}
		v = strconv.FormatInt(n, 10)
	case kindEnum:
		found := false
		for _, e := range s.enum {
			if strings.EqualFold(e, v) {
				v, found = e, true
				break
			}
		}
		if !found {
			return "argument(s) must be one of the following: " + strings.Join(s.enum, ", ")
		}
	case kindSpecial:
		if msg := s.check(v); msg != "" {
			return msg
		}
	}
	if s.apply != nil {
		s.apply(c, v)
	} else {
		c.other[s.name] = v
	}
	return ""
}

// parseMemory parses Redis's memory values (memtoull): digits with an
// optional b, k, kb, m, mb, g, gb unit, any case.
func parseMemory(v string) (int64, bool) {
	l := strings.ToLower(v)
	mul := int64(1)
	for _, u := range []struct {
		s string
		m int64
	}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"g", 1000 * 1000 * 1000}, {"m", 1000 * 1000}, {"k", 1000}, {"b", 1}} {
		if strings.HasSuffix(l, u.s) {
			l, mul = l[:len(l)-len(u.s)], u.m
			break
		}
	}
	if l == "" {
		return 0, false
	}
	for _, ch := range l {
		if ch < '0' || ch > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(l, 10, 64)
	if err != nil || n > math.MaxInt64/mul {
		return 0, false
	}
	return n * mul, true
}

func checkSave(v string) string {
	if v == "" {
		return ""
	}
	f := strings.Fields(v)
	if len(f) == 0 || len(f)%2 != 0 {
		return "Invalid save parameters"
	}
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || (i%2 == 0 && n < 1) || (i%2 == 1 && n < 0) {
			return "Invalid save parameters"
		}
	}
	return ""
}

var outputBufferClasses = []string{"normal", "slave", "pubsub"}

// checkOutputBufferLimit validates client-output-buffer-limit: groups of
// class, hard limit, soft limit, soft seconds.
func checkOutputBufferLimit(v string) string {
	f := strings.Fields(v)
	if len(f)%4 != 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	for i := 0; i < len(f); i += 4 {
		switch strings.ToLower(f[i]) {
		case "normal", "slave", "replica", "pubsub":
		default:
			return "Invalid client class specified in buffer limit configuration."
		}
		_, ok1 := parseMemory(f[i+1])
		_, ok2 := parseMemory(f[i+2])
		secs, err := strconv.ParseInt(f[i+3], 10, 64)
		if !ok1 || !ok2 || err != nil || secs < 0 {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
	}
	return ""
}

// applyOutputBufferLimit merges the classes given into the current value,
// as Redis does, and renders every class in bytes.
func applyOutputBufferLimit(c *Config, v string) {
	cur := map[string][3]int64{}
	parse := func(s string) {
		f := strings.Fields(s)
		for i := 0; i+3 < len(f); i += 4 {
			class := strings.ToLower(f[i])
			if class == "replica" {
				class = "slave"
			}
			h, _ := parseMemory(f[i+1])
			so, _ := parseMemory(f[i+2])
			t, _ := strconv.ParseInt(f[i+3], 10, 64)
			cur[class] = [3]int64{h, so, t}
		}
	}
	parse(c.other["client-output-buffer-limit"])
	parse(v)
	var parts []string
	for _, class := range outputBufferClasses {
		l := cur[class]
		parts = append(parts, class, strconv.FormatInt(l[0], 10), strconv.FormatInt(l[1], 10), strconv.FormatInt(l[2], 10))
	}
	c.other["client-output-buffer-limit"] = strings.Join(parts, " ")
}

// settingInt and settingString read a setting for INFO.
func settingInt(e *Engine, name string) int64 {
	v, _ := e.Config.Get(name)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

func settingString(e *Engine, name string) string {
	v, _ := e.Config.Get(name)
	return v
}

// CONFIG

var configSubs = []*Spec{
	{Name: "get", Arity: -3, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"admin", "slow", "dangerous"}, Fn: configGet},
	{Name: "set", Arity: -4, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"admin", "slow", "dangerous"}, Fn: configSet},
	{Name: "resetstat", Arity: 2, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"admin", "slow", "dangerous"}, Fn: configResetStat},
	{Name: "rewrite", Arity: 2, Flags: Admin | NoScript | Loading | Stale, ACL: []string{"admin", "slow", "dangerous"}, Fn: configRewrite},
	{Name: "help", Arity: 2, Flags: Loading | Stale, ACL: []string{"slow"}, Fn: configHelp},
}

var configCommands = []*Spec{
	{Name: "config", Arity: -2, ACL: []string{"slow"}, Sub: configSubs},
}

func init() { Register(configCommands) }

func configGet(c *Ctx, args [][]byte) {
	type match struct{ name, value string }
	var out []match
	seen := map[string]bool{}
	for _, a := range args[2:] {
		pat := string(a)
		if !strings.ContainsAny(pat, "[*?") {
			s := lookupSetting(pat)
			if s != nil && !seen[pat] {
				seen[pat] = true
				out = append(out, match{pat, s.get(c.E.Config)})
			}
			continue
		}
		for name, s := range settingIndex {
			if !seen[name] && glob.Match(pat, name, true) {
				seen[name] = true
				out = append(out, match{name, s.get(c.E.Config)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	c.W.Map(len(out))
	for _, m := range out {
		c.W.BulkString(m.name)
		c.W.BulkString(m.value)
	}
}

// configSet applies every name/value pair or none, as Redis 7.0 does.
func configSet(c *Ctx, args [][]byte) {
	if len(args)%2 != 0 {
		c.Error(ErrSyntax)
		return
	}
	type change struct {
		s     *setting
		arg   string
		value string
	}
	var changes []change
	for i := 2; i < len(args); i += 2 {
		s := lookupSetting(string(args[i]))
		if s == nil {
			c.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + string(args[i]) + "'")
			return
		}
		changes = append(changes, change{s, string(args[i]), string(args[i+1])})
	}
	fail := func(arg, msg string) {
		c.Error("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + msg)
	}
	for i, ch := range changes {
		for _, prev := range changes[:i] {
			if prev.s == ch.s {
				fail(ch.arg, "duplicate parameter")
				return
			}
		}
		if ch.s.flags&cfgImmutable != 0 {
			fail(ch.arg, "can't set immutable config")
			return
		}
		if ch.s.flags&cfgProtected != 0 {
			fail(ch.arg, "can't set protected config")
			return
		}
	}
	cfg := c.E.Config
	old := make([]string, len(changes))
	for i, ch := range changes {
		old[i] = ch.s.get(cfg)
	}
	for i, ch := range changes {
		if msg := ch.s.set(cfg, ch.value); msg != "" {
			for j := i - 1; j >= 0; j-- {
				changes[j].s.set(cfg, old[j])
			}
			fail(ch.arg, msg)
			return
		}
	}
	for _, ch := range changes {
		if ch.s.name == "requirepass" {
			c.E.refreshAuth()
		}
	}
	c.W.OK()
}

func configResetStat(c *Ctx, args [][]byte) {
	c.E.Stats = Stats{Dirty: c.E.Stats.Dirty}
	c.E.srv.errorStats = nil
	c.E.srv.cmdStats = nil
	c.W.OK()
}

func configRewrite(c *Ctx, args [][]byte) { c.Error(ErrConfigRewriteNoCfg) }

var configHelpLines = []string{
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
}

func configHelp(c *Ctx, args [][]byte) { replyHelp(c, "config", configHelpLines) }
