package config

import (
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/internal/redisconf"
	"github.com/lockkv/lockkv/internal/redisnum"
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
	Port               int // reported by CONFIG GET port and INFO; 0: no plain TCP

	// ProtectedMode is protected-mode: with no requirepass, clients from
	// other hosts are turned away (the engine's Accept).
	ProtectedMode bool
	// EnableDebugCommand and EnableProtectedConfigs are
	// enable-debug-command and enable-protected-configs: ProtectedNo,
	// ProtectedYes or ProtectedLocal. Fixed when the server starts.
	EnableDebugCommand     string
	EnableProtectedConfigs string
	// IOThreads is io-threads: the event loop's thread and its I/O
	// workers together (1: the loop alone), read at start. Redis's
	// default is 1; lockkv's is DefaultIOThreads of the cores it may
	// use.
	IOThreads int
	// TCPKeepalive is tcp-keepalive, seconds (0: off); the server applies
	// it to each connection it accepts.
	TCPKeepalive int
	// LogLevel, when set, is the server's log level: CONFIG SET loglevel
	// changes it. Without it loglevel only takes its current value.
	LogLevel *slog.LevelVar
	// ConfigFile is the absolute path of the config file the server was
	// started with (INFO config_file), "" without one: the file CONFIG
	// REWRITE writes (the engine's Options.Rewrite).
	ConfigFile string
	// clustered is set on a Raft node (SetClustered): the Redis
	// replication and Redis Cluster settings then only take their current
	// values.
	clustered bool

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

	// MaxmemoryPolicy is maxmemory-policy (lockkv never evicts); LFU is
	// set under allkeys-lfu and volatile-lfu, when keys keep Redis's LFU
	// counter (OBJECT FREQ) instead of their last access time.
	// LFULogFactor and LFUDecayTime are lfu-log-factor and lfu-decay-time.
	MaxmemoryPolicy string
	LFU             bool
	LFULogFactor    int
	LFUDecayTime    int

	// Maxmemory is maxmemory: above it, commands that may grow memory are
	// refused (see evict.go). 0 is no limit.
	Maxmemory uint64
	// ClientQueryBufferLimit is client-query-buffer-limit: a client whose
	// unrun input grows past it is closed.
	ClientQueryBufferLimit int64
	// OutputBufferLimits is client-output-buffer-limit, by client class
	// (ClassNormal, ClassReplica, ClassPubSub).
	OutputBufferLimits [3]OutputBufferLimit

	// SlowlogLogSlowerThan (µs; -1: off) and SlowlogMaxLen are
	// slowlog-log-slower-than and slowlog-max-len; LatencyMonitorThreshold
	// (ms; 0: off) is latency-monitor-threshold (slowlog.go).
	SlowlogLogSlowerThan    int64
	SlowlogMaxLen           int64
	LatencyMonitorThreshold int64
	// LatencyTracking is latency-tracking: each command's calls are
	// counted into its latency histogram (LATENCY HISTOGRAM, INFO
	// latencystats, /metrics); latencyPercentiles are
	// latency-tracking-info-percentiles, as parsed (slowlog.go).
	LatencyTracking    bool
	latencyPercentiles []float64

	// other holds the settings lockkv accepts and reports without acting
	// on them (maxmemory, appendonly, save, ...), by canonical name.
	other map[string]string
}

// DefaultIOThreads is lockkv's io-threads for a process that may use
// procs cores: 1 (no I/O workers) below 4, else half of them, at most 8.
// Redis's default is 1 and its advice "2 or 3 on 4 cores, 6 on 8": the
// event loop of one node must leave cores to the other goroutines
// (Raft, the GC) and, on a machine that runs a cluster, to its peers.
func DefaultIOThreads(procs int) int {
	if procs < 4 {
		return 1
	}
	return min(procs/2, 8)
}

// NewConfig returns Redis 7.0's defaults (io-threads aside:
// DefaultIOThreads). (hash-max-listpack-entries is
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
		ProtectedMode:          true,
		EnableDebugCommand:     ProtectedNo,
		EnableProtectedConfigs: ProtectedNo,
		TCPKeepalive:           300,
		IOThreads:              DefaultIOThreads(runtime.GOMAXPROCS(0)),
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		ListMaxListpackSize:    -2,
		LuaTimeLimit:           5000,
		TrackingTableMaxKeys:   1000000,
		MaxmemoryPolicy:        "noeviction",
		LFULogFactor:           10,
		LFUDecayTime:           1,
		SlowlogMaxLen:          128,
		SlowlogLogSlowerThan:   10000,
		LatencyTracking:        true,
		latencyPercentiles:     []float64{50, 99, 99.9},
		other:                  map[string]string{},
	}
	for _, s := range settings {
		if s.read == nil {
			c.other[s.name] = s.dflt
		}
	}
	c.other["loglevel"] = "notice"
	if wd, err := os.Getwd(); err == nil {
		c.other["dir"] = wd
	}
	c.ClientQueryBufferLimit = 1024 * mb
	c.OutputBufferLimits = parseOutputBufferLimits(c.other["client-output-buffer-limit"])
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
	if s.flags&cfgProtected != 0 && c.EnableProtectedConfigs != ProtectedYes {
		return false, "can't set protected config"
	}
	old := s.get(c)
	if msg := s.set(c, value); msg != "" {
		return false, msg
	}
	if msg := s.refusal(c, old, s.get(c)); msg != "" {
		s.set(c, old)
		return false, msg
	}
	return true, ""
}

// Load sets a setting as the server starts, as Redis reads its
// configuration: immutable, protected and fixed settings included. The
// value is validated as CONFIG SET validates it.
func (c *Config) Load(name, value string) (ok bool, errText string) {
	s := lookupSetting(name)
	if s == nil {
		return false, "unknown option"
	}
	if msg := s.set(c, value); msg != "" {
		return false, msg
	}
	return true, ""
}

// settings table
//
// Every setting redis-server 7.0.15 has (CONFIG GET * of a default
// server, aliases included, plus its hidden ones), with src/config.c's
// types, bounds, flags and error texts. The ones with read/apply are
// honoured; the rest are accepted, validated as Redis validates them, and
// reported.

type settingKind int

const (
	kindString settingKind = iota
	kindBool
	kindNum     // integer or memory value within [min, max]
	kindEnum    // one of enum, any case; reported as listed
	kindSpecial // parsed by special
)

const (
	cfgImmutable = 1 << iota // "can't set immutable config"
	cfgProtected             // "can't set protected config"
	cfgHidden                // left out of CONFIG GET patterns (exact names only)
	cfgUnsigned              // bounds compared as unsigned (size_t, unsigned int, unsigned long long)
	cfgMemory                // a memory value (1gb, 10mb, ...), reported in bytes
	cfgPercent               // or a percentage ("10%"), kept as its negative
)

type setting struct {
	name, alias string
	kind        settingKind
	dflt        string
	min, max    int64 // kindNum bounds; max -1 with cfgUnsigned is ULLONG_MAX
	enum        []string
	flags       int
	// check adds validation to a kindString or kindBool value: it returns
	// the error text or "".
	check func(v string) string
	// special parses a kindSpecial value into the value CONFIG GET shows
	// (c holds the current settings), or returns the error text.
	special func(c *Config, v string) (value, errText string)
	// apply, when set, stores a validated value into Config fields.
	apply func(c *Config, v string)
	// read, when set, renders the value from Config fields.
	read func(c *Config) string
}

const (
	intMin   = math.MinInt32
	intMax   = math.MaxInt32
	longMax  = math.MaxInt64
	uintMax  = math.MaxUint32
	ullMax   = -1 // with cfgUnsigned
	mb       = 1 << 20
	noFlags  = 0
	immut    = cfgImmutable
	hidden   = cfgHidden
	sizeT    = cfgUnsigned
	memSizeT = cfgMemory | cfgUnsigned
)

func boolSetting(name, alias, dflt string, flags int) *setting {
	return &setting{name: name, alias: alias, kind: kindBool, dflt: dflt, flags: flags}
}

func stringSetting(name, alias, dflt string, flags int) *setting {
	return &setting{name: name, alias: alias, kind: kindString, dflt: dflt, flags: flags}
}

func numSetting(name, alias string, min, max, dflt int64, flags int) *setting {
	s := &setting{name: name, alias: alias, kind: kindNum, min: min, max: max, flags: flags}
	s.dflt = s.render(dflt)
	return s
}

func enumSetting(name, dflt string, flags int, values ...string) *setting {
	return &setting{name: name, kind: kindEnum, dflt: dflt, flags: flags, enum: values}
}

// boundInt is a numeric setting stored in an int Config field.
func boundInt(name, alias string, min, max int64, flags int, f func(c *Config) *int) *setting {
	s := numSetting(name, alias, min, max, 0, flags)
	s.read = func(c *Config) string { return s.render(int64(*f(c))) }
	s.apply = func(c *Config, v string) { n, _ := strconv.ParseInt(v, 10, 64); *f(c) = int(n) }
	return s
}

// boundInt64 is a numeric setting stored in an int64 Config field, with
// its default.
func boundInt64(name string, min, max, dflt int64, f func(c *Config) *int64) *setting {
	s := numSetting(name, "", min, max, dflt, noFlags)
	s.read = func(c *Config) string { return s.render(*f(c)) }
	s.apply = func(c *Config, v string) { n, _ := strconv.ParseInt(v, 10, 64); *f(c) = n }
	return s
}

var maxmemoryPolicies = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}

var settings = []*setting{
	// Honoured.
	{name: "databases", kind: kindNum, min: 1, max: intMax, flags: immut, read: func(c *Config) string { return strconv.Itoa(c.Databases) }},
	{name: "requirepass", kind: kindString, read: func(c *Config) string { return c.RequirePass },
		apply: func(c *Config, v string) { c.RequirePass = v }},
	boundInt("maxclients", "", 1, uintMax, cfgUnsigned, func(c *Config) *int { return &c.MaxClients }),
	boundInt("tracking-table-max-keys", "", 0, longMax, sizeT, func(c *Config) *int { return &c.TrackingTableMaxKeys }),
	{name: "notify-keyspace-events", kind: kindSpecial,
		special: func(c *Config, v string) (string, string) {
			// Kept as given: the flags, not their rendering, which
			// drops 'n' next to 'A' (keyspaceEventsFlagsToString).
			if _, ok := ParseNotifyFlags(v); !ok {
				return "", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
			}
			return v, ""
		},
		read:  func(c *Config) string { return NotifyFlagsString(c.NotifyFlags) },
		apply: func(c *Config, v string) { c.NotifyFlags, _ = ParseNotifyFlags(v) }},
	{name: "proto-max-bulk-len", kind: kindNum, min: mb, max: longMax, flags: cfgMemory,
		read:  func(c *Config) string { return strconv.FormatInt(c.ProtoMaxBulkLen, 10) },
		apply: func(c *Config, v string) { c.ProtoMaxBulkLen, _ = strconv.ParseInt(v, 10, 64) }},
	boundInt("timeout", "", 0, intMax, noFlags, func(c *Config) *int { return &c.Timeout }),
	{name: "hz", kind: kindNum, min: 0, max: intMax,
		read: func(c *Config) string { return strconv.Itoa(c.Hz) },
		apply: func(c *Config, v string) {
			n, _ := strconv.Atoi(v)
			c.Hz = min(max(n, 1), 500) // updateHZ
		}},
	boundInt("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, longMax, sizeT, func(c *Config) *int { return &c.HashMaxListpackEntries }),
	boundInt("hash-max-listpack-value", "hash-max-ziplist-value", 0, longMax, memSizeT, func(c *Config) *int { return &c.HashMaxListpackValue }),
	boundInt("set-max-intset-entries", "", 0, longMax, sizeT, func(c *Config) *int { return &c.SetMaxIntsetEntries }),
	boundInt("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, longMax, sizeT, func(c *Config) *int { return &c.ZSetMaxListpackEntries }),
	boundInt("zset-max-listpack-value", "zset-max-ziplist-value", 0, longMax, memSizeT, func(c *Config) *int { return &c.ZSetMaxListpackValue }),
	boundInt("list-max-listpack-size", "list-max-ziplist-size", intMin, intMax, noFlags, func(c *Config) *int { return &c.ListMaxListpackSize }),
	boundInt("list-compress-depth", "", 0, intMax, noFlags, func(c *Config) *int { return &c.ListCompressDepth }),
	{name: "busy-reply-threshold", alias: "lua-time-limit", kind: kindNum, min: 0, max: longMax,
		read:  func(c *Config) string { return strconv.FormatInt(c.LuaTimeLimit, 10) },
		apply: func(c *Config, v string) { c.LuaTimeLimit, _ = strconv.ParseInt(v, 10, 64) }},
	{name: "maxmemory-policy", kind: kindEnum, enum: maxmemoryPolicies,
		read: func(c *Config) string { return c.MaxmemoryPolicy },
		apply: func(c *Config, v string) {
			c.MaxmemoryPolicy = v
			c.LFU = strings.HasSuffix(v, "-lfu")
		}},
	boundInt("lfu-log-factor", "", 0, intMax, noFlags, func(c *Config) *int { return &c.LFULogFactor }),
	boundInt("lfu-decay-time", "", 0, intMax, noFlags, func(c *Config) *int { return &c.LFUDecayTime }),
	{name: "port", kind: kindNum, min: 0, max: 65535, read: func(c *Config) string { return strconv.Itoa(c.Port) },
		apply: func(c *Config, v string) { c.Port, _ = strconv.Atoi(v) }},

	// Accepted and reported. Booleans.
	boolSetting("rdbchecksum", "", "yes", immut),
	boolSetting("daemonize", "", "no", immut),
	boolSetting("io-threads-do-reads", "", "no", immut),
	boolSetting("always-show-logo", "", "no", immut),
	{name: "protected-mode", kind: kindBool, read: func(c *Config) string { return yesNo(c.ProtectedMode) },
		apply: func(c *Config, v string) { c.ProtectedMode = v == "yes" }},
	boolSetting("rdbcompression", "", "yes", noFlags),
	boolSetting("rdb-del-sync-files", "", "no", noFlags),
	boolSetting("activerehashing", "", "yes", noFlags),
	boolSetting("stop-writes-on-bgsave-error", "", "yes", noFlags),
	boolSetting("set-proc-title", "", "yes", immut),
	boolSetting("dynamic-hz", "", "yes", noFlags),
	boolSetting("lazyfree-lazy-eviction", "", "no", noFlags),
	boolSetting("lazyfree-lazy-expire", "", "no", noFlags),
	boolSetting("lazyfree-lazy-server-del", "", "no", noFlags),
	boolSetting("lazyfree-lazy-user-del", "", "no", noFlags),
	boolSetting("lazyfree-lazy-user-flush", "", "no", noFlags),
	boolSetting("repl-disable-tcp-nodelay", "", "no", noFlags),
	boolSetting("repl-diskless-sync", "", "yes", noFlags),
	boolSetting("aof-rewrite-incremental-fsync", "", "yes", noFlags),
	boolSetting("no-appendfsync-on-rewrite", "", "no", noFlags),
	boolSetting("cluster-require-full-coverage", "", "yes", noFlags),
	boolSetting("rdb-save-incremental-fsync", "", "yes", noFlags),
	boolSetting("aof-load-truncated", "", "yes", noFlags),
	boolSetting("aof-use-rdb-preamble", "", "yes", noFlags),
	boolSetting("aof-timestamp-enabled", "", "no", noFlags),
	boolSetting("cluster-replica-no-failover", "cluster-slave-no-failover", "no", noFlags),
	boolSetting("replica-lazy-flush", "slave-lazy-flush", "no", noFlags),
	boolSetting("replica-serve-stale-data", "slave-serve-stale-data", "yes", noFlags),
	boolSetting("replica-read-only", "slave-read-only", "yes", noFlags),
	boolSetting("replica-ignore-maxmemory", "slave-ignore-maxmemory", "yes", noFlags),
	boolSetting("jemalloc-bg-thread", "", "yes", noFlags),
	// Redis as packaged (system jemalloc) cannot defragment.
	{name: "activedefrag", kind: kindBool, dflt: "no", check: func(v string) string {
		if v == "yes" {
			return "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"
		}
		return ""
	}},
	boolSetting("syslog-enabled", "", "no", immut),
	boolSetting("cluster-enabled", "", "no", immut),
	boolSetting("appendonly", "", "no", noFlags),
	boolSetting("cluster-allow-reads-when-down", "", "no", noFlags),
	boolSetting("cluster-allow-pubsubshard-when-down", "", "yes", noFlags),
	boolSetting("crash-log-enabled", "", "yes", noFlags),
	boolSetting("crash-memcheck-enabled", "", "yes", noFlags),
	boolSetting("use-exit-on-panic", "", "no", hidden),
	boolSetting("disable-thp", "", "yes", immut),
	boolSetting("cluster-allow-replica-migration", "", "yes", noFlags),
	boolSetting("replica-announced", "", "yes", noFlags),
	{name: "latency-tracking", kind: kindBool, read: func(c *Config) string { return yesNo(c.LatencyTracking) },
		apply: func(c *Config, v string) { c.LatencyTracking = v == "yes" }},
	boolSetting("aof-disable-auto-gc", "", "no", noFlags),
	boolSetting("replica-ignore-disk-write-errors", "", "no", noFlags),
	boolSetting("tls-cluster", "", "no", noFlags),
	boolSetting("tls-replication", "", "no", noFlags),
	boolSetting("tls-prefer-server-ciphers", "", "no", noFlags),
	boolSetting("tls-session-caching", "", "yes", noFlags),

	// Strings.
	stringSetting("aclfile", "", "", immut),
	stringSetting("unixsocket", "", "", immut),
	stringSetting("pidfile", "", "", immut),
	stringSetting("replica-announce-ip", "slave-announce-ip", "", noFlags),
	stringSetting("masteruser", "", "", noFlags),
	stringSetting("cluster-announce-ip", "", "", noFlags),
	stringSetting("cluster-config-file", "", "nodes.conf", immut),
	{name: "cluster-announce-hostname", kind: kindString, check: checkHostname},
	stringSetting("syslog-ident", "", "redis", immut),
	{name: "dbfilename", kind: kindString, dflt: "dump.rdb", flags: cfgProtected, check: checkDBFilename},
	stringSetting("appendfilename", "", "appendonly.aof", immut),
	stringSetting("appenddirname", "", "appendonlydir", immut),
	stringSetting("server_cpulist", "", "", immut),
	stringSetting("bio_cpulist", "", "", immut),
	stringSetting("aof_rewrite_cpulist", "", "", immut),
	stringSetting("bgsave_cpulist", "", "", immut),
	stringSetting("ignore-warnings", "", "", noFlags),
	{name: "proc-title-template", kind: kindString, dflt: "{title} {listen-addr} {server-mode}", check: checkProcTitleTemplate},
	stringSetting("bind-source-addr", "", "", noFlags),
	stringSetting("logfile", "", "", immut),
	stringSetting("masterauth", "", "", noFlags),
	stringSetting("tls-cert-file", "", "", noFlags),
	stringSetting("tls-key-file", "", "", noFlags),
	stringSetting("tls-key-file-pass", "", "", noFlags),
	stringSetting("tls-client-cert-file", "", "", noFlags),
	stringSetting("tls-client-key-file", "", "", noFlags),
	stringSetting("tls-client-key-file-pass", "", "", noFlags),
	stringSetting("tls-dh-params-file", "", "", noFlags),
	stringSetting("tls-ca-cert-file", "", "", noFlags),
	stringSetting("tls-ca-cert-dir", "", "", noFlags),
	stringSetting("tls-protocols", "", "", noFlags),
	stringSetting("tls-ciphers", "", "", noFlags),
	stringSetting("tls-ciphersuites", "", "", noFlags),

	// Enums.
	enumSetting("supervised", "no", immut, "upstart", "systemd", "auto", "no"),
	enumSetting("syslog-facility", "local0", immut, "user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"),
	enumSetting("repl-diskless-load", "disabled", noFlags, "disabled", "on-empty-db", "swapdb"),
	{name: "loglevel", kind: kindEnum, dflt: "notice", enum: logLevelNames, read: readLogLevel, apply: applyLogLevel},
	enumSetting("appendfsync", "everysec", noFlags, "everysec", "always", "no"),
	enumSetting("oom-score-adj", "no", noFlags, "no", "yes", "relative", "absolute"),
	enumSetting("acl-pubsub-default", "resetchannels", noFlags, "allchannels", "resetchannels"),
	enumSetting("sanitize-dump-payload", "no", noFlags, "no", "yes", "clients"),
	{name: "enable-protected-configs", kind: kindEnum, flags: immut, enum: protectedActionValues,
		read: func(c *Config) string { return c.EnableProtectedConfigs }},
	{name: "enable-debug-command", kind: kindEnum, flags: immut, enum: protectedActionValues,
		read: func(c *Config) string { return c.EnableDebugCommand }},
	enumSetting("enable-module-command", "no", immut, "no", "yes", "local"),
	enumSetting("cluster-preferred-endpoint-type", "ip", noFlags, "ip", "hostname", "unknown-endpoint"),
	enumSetting("propagation-error-behavior", "ignore", noFlags, "ignore", "panic", "panic-on-replicas"),
	enumSetting("tls-auth-clients", "yes", noFlags, "no", "yes", "optional"),
	{name: "shutdown-on-sigint", kind: kindSpecial, dflt: "default", special: setShutdownOnSig},
	{name: "shutdown-on-sigterm", kind: kindSpecial, dflt: "default", special: setShutdownOnSig},

	// Numbers.
	boundInt("io-threads", "", 1, 128, immut, func(c *Config) *int { return &c.IOThreads }),
	numSetting("auto-aof-rewrite-percentage", "", 0, intMax, 100, noFlags),
	numSetting("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0, intMax, 10, noFlags),
	boundInt("tcp-keepalive", "", 0, intMax, noFlags, func(c *Config) *int { return &c.TCPKeepalive }),
	numSetting("cluster-migration-barrier", "", 0, intMax, 1, noFlags),
	numSetting("active-defrag-cycle-min", "", 1, 99, 1, noFlags),
	numSetting("active-defrag-cycle-max", "", 1, 99, 25, noFlags),
	numSetting("active-defrag-threshold-lower", "", 0, 1000, 10, noFlags),
	numSetting("active-defrag-threshold-upper", "", 0, 1000, 100, noFlags),
	numSetting("replica-priority", "slave-priority", 0, intMax, 100, noFlags),
	numSetting("repl-diskless-sync-delay", "", 0, intMax, 5, noFlags),
	numSetting("maxmemory-samples", "", 1, intMax, 5, noFlags),
	numSetting("maxmemory-eviction-tenacity", "", 0, 100, 10, noFlags),
	numSetting("replica-announce-port", "slave-announce-port", 0, 65535, 0, noFlags),
	numSetting("tcp-backlog", "", 0, intMax, 511, immut),
	numSetting("cluster-port", "", 0, 65535, 0, immut),
	numSetting("cluster-announce-bus-port", "", 0, 65535, 0, noFlags),
	numSetting("cluster-announce-port", "", 0, 65535, 0, noFlags),
	numSetting("cluster-announce-tls-port", "", 0, 65535, 0, noFlags),
	numSetting("repl-timeout", "", 1, intMax, 60, noFlags),
	numSetting("repl-ping-replica-period", "repl-ping-slave-period", 1, intMax, 10, noFlags),
	numSetting("rdb-key-save-delay", "", intMin, intMax, 0, hidden),
	numSetting("key-load-delay", "", intMin, intMax, 0, hidden),
	numSetting("active-expire-effort", "", 1, 10, 1, noFlags),
	numSetting("min-replicas-to-write", "min-slaves-to-write", 0, intMax, 0, noFlags),
	numSetting("min-replicas-max-lag", "min-slaves-max-lag", 0, intMax, 10, noFlags),
	numSetting("watchdog-period", "", 0, intMax, 0, hidden),
	numSetting("shutdown-timeout", "", 0, intMax, 10, noFlags),
	numSetting("repl-diskless-sync-max-replicas", "", 0, intMax, 0, noFlags),
	numSetting("socket-mark-id", "", 0, uintMax, 0, immut|cfgUnsigned),
	numSetting("unixsocketperm", "", 0, 0o777, 0, immut|cfgUnsigned), // octal; immutable, so always "0"
	numSetting("active-defrag-max-scan-fields", "", 1, longMax, 1000, noFlags),
	boundInt64("slowlog-max-len", 0, longMax, 128, func(c *Config) *int64 { return &c.SlowlogMaxLen }),
	numSetting("acllog-max-len", "", 0, longMax, 128, noFlags),
	numSetting("cluster-node-timeout", "", 0, longMax, 15000, noFlags),
	boundInt64("slowlog-log-slower-than", -1, longMax, 10000, func(c *Config) *int64 { return &c.SlowlogLogSlowerThan }),
	boundInt64("latency-monitor-threshold", 0, longMax, 0, func(c *Config) *int64 { return &c.LatencyMonitorThreshold }),
	numSetting("stream-node-max-entries", "", 0, longMax, 100, noFlags),
	{name: "repl-backlog-size", kind: kindNum, min: 1, max: longMax, dflt: "1048576", flags: cfgMemory,
		apply: func(c *Config, v string) {
			// resizeReplicationBacklog: at least CONFIG_REPL_BACKLOG_MIN_SIZE.
			if n, _ := strconv.ParseInt(v, 10, 64); n < 16*1024 {
				v = "16384"
			}
			c.other["repl-backlog-size"] = v
		}},
	{name: "maxmemory", kind: kindNum, min: 0, max: ullMax, flags: cfgMemory | cfgUnsigned,
		read:  func(c *Config) string { return strconv.FormatUint(c.Maxmemory, 10) },
		apply: func(c *Config, v string) { c.Maxmemory, _ = strconv.ParseUint(v, 10, 64) }},
	numSetting("cluster-link-sendbuf-limit", "", 0, ullMax, 0, cfgMemory|cfgUnsigned),
	numSetting("active-defrag-ignore-bytes", "", 1, longMax, 100*mb, memSizeT),
	numSetting("stream-node-max-bytes", "", 0, longMax, 4096, memSizeT),
	numSetting("hll-sparse-max-bytes", "", 0, longMax, 3000, memSizeT),
	{name: "client-query-buffer-limit", kind: kindNum, min: mb, max: longMax, flags: memSizeT,
		read:  func(c *Config) string { return strconv.FormatInt(c.ClientQueryBufferLimit, 10) },
		apply: func(c *Config, v string) { c.ClientQueryBufferLimit, _ = strconv.ParseInt(v, 10, 64) }},
	numSetting("maxmemory-clients", "", -100, longMax, 0, cfgMemory|cfgPercent),
	numSetting("repl-backlog-ttl", "", 0, longMax, 3600, noFlags),
	numSetting("auto-aof-rewrite-min-size", "", 0, longMax, 64*mb, cfgMemory),
	numSetting("loading-process-events-interval-bytes", "", 1024, intMax, 2*mb, hidden),
	numSetting("tls-port", "", 0, 65535, 0, noFlags),
	numSetting("tls-session-cache-size", "", 0, intMax, 20*1024, noFlags),
	numSetting("tls-session-cache-timeout", "", 0, intMax, 300, noFlags),

	// Special.
	// dir is where SAVE writes (lockkv does not chdir: it may be
	// embedded); CONFIG GET shows it absolute, as Redis shows getcwd().
	{name: "dir", kind: kindString, dflt: "/", flags: cfgProtected, check: checkDir,
		apply: func(c *Config, v string) {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
			c.other["dir"] = v
		}},
	{name: "save", kind: kindSpecial, dflt: "", special: setSave},
	{name: "client-output-buffer-limit", kind: kindSpecial, dflt: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", special: setOutputBufferLimit,
		apply: func(c *Config, v string) {
			c.other["client-output-buffer-limit"] = v
			c.OutputBufferLimits = parseOutputBufferLimits(v)
		}},
	{name: "oom-score-adj-values", kind: kindSpecial, dflt: "0 200 800", special: setOOMScoreAdjValues},
	{name: "bind", kind: kindSpecial, dflt: "127.0.0.1", special: setBind},
	{name: "replicaof", alias: "slaveof", kind: kindString, dflt: "", flags: immut},
	{name: "latency-tracking-info-percentiles", kind: kindSpecial, dflt: "50 99 99.9", special: setLatencyPercentiles},
}

var settingIndex = func() map[string]*setting {
	m := map[string]*setting{}
	for _, s := range settings {
		for _, n := range []string{s.name, s.alias} {
			if n == "" {
				continue
			}
			if m[n] != nil {
				panic("config: duplicate setting " + n)
			}
			m[n] = s
		}
	}
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
	case kindNum:
		n, msg := s.parseNum(v)
		if msg == "" {
			msg = s.checkBounds(n)
		}
		if msg != "" {
			return msg
		}
		v = s.render(n)
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
		val, msg := s.special(c, v)
		if msg != "" {
			return msg
		}
		v = val
	}
	if s.check != nil {
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

// parseNum parses a numeric setting as numericParseString does: a memory
// value, else a percentage, else (for plain integers only) string2ll.
func (s *setting) parseNum(v string) (int64, string) {
	if s.flags&cfgMemory != 0 {
		if u, ok := memtoull(v); ok {
			return int64(u), ""
		}
	}
	if s.flags&cfgPercent != 0 && len(v) > 1 && v[len(v)-1] == '%' {
		if n, ok := redisnum.ParseInt([]byte(v[:len(v)-1])); ok && n >= 0 {
			return -n, ""
		}
	}
	switch {
	case s.flags&cfgMemory != 0 && s.flags&cfgPercent != 0:
		return 0, "argument must be a memory or percent value"
	case s.flags&cfgMemory != 0:
		return 0, "argument must be a memory value"
	}
	n, ok := redisnum.ParseInt([]byte(v))
	if !ok {
		return 0, "argument couldn't be parsed into an integer"
	}
	return n, ""
}

// checkBounds is numericBoundaryCheck.
func (s *setting) checkBounds(n int64) string {
	if s.flags&cfgUnsigned != 0 {
		if uint64(n) > uint64(s.max) || uint64(n) < uint64(s.min) {
			return "argument must be between " + strconv.FormatUint(uint64(s.min), 10) + " and " + strconv.FormatUint(uint64(s.max), 10) + " inclusive"
		}
		return ""
	}
	if s.flags&cfgPercent != 0 && n < 0 {
		if n < s.min {
			return "percentage argument must be less or equal to " + strconv.FormatInt(-s.min, 10)
		}
		return ""
	}
	if n > s.max || n < s.min {
		return "argument must be between " + strconv.FormatInt(s.min, 10) + " and " + strconv.FormatInt(s.max, 10) + " inclusive"
	}
	return ""
}

// render is numericConfigGet.
func (s *setting) render(n int64) string {
	switch {
	case s.flags&cfgPercent != 0 && n < 0:
		return strconv.FormatInt(-n, 10) + "%"
	case s.flags&cfgMemory != 0:
		return strconv.FormatUint(uint64(n), 10)
	}
	return strconv.FormatInt(n, 10)
}

// memtoull parses a memory value as Redis's memtoull: decimal digits (none
// reads as 0) and an optional unit b, k, kb, m, mb, g, gb in any case;
// more digits than fit saturate, and the unit's product wraps, as in C.
func memtoull(v string) (uint64, bool) {
	i := 0
	if i < len(v) && v[i] == '-' {
		return 0, false
	}
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(v[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var n uint64
	for _, ch := range v[:i] {
		d := uint64(ch - '0')
		if n > (math.MaxUint64-d)/10 {
			n = math.MaxUint64 // strtoull: ERANGE, ULLONG_MAX
			break
		}
		n = n*10 + d
	}
	return n * mul, true
}

// splitArgs splits a multi-argument setting's value as Redis does
// (sdssplitlen on single spaces: "" is no argument, "a  b" has an empty
// one).
func splitArgs(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, " ")
}

// strtoll is C's strtoll in base 10: leading white space, a sign, digits;
// it returns the value (saturated on overflow) and the unparsed rest (all
// of s when there are no digits).
func strtoll(s string) (int64, string) {
	i := 0
	for i < len(s) && redisnum.IsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var n uint64
	over := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n > (1<<63)/10 || (n == (1<<63)/10 && uint64(s[i]-'0') > (1<<63)%10) {
			over = true
		}
		n = n*10 + uint64(s[i]-'0')
		i++
	}
	if i == start {
		return 0, s
	}
	switch {
	case neg && (over || n > 1<<63):
		return math.MinInt64, s[i:]
	case neg:
		return -int64(n), s[i:]
	case over || n > math.MaxInt64:
		return math.MaxInt64, s[i:]
	}
	return int64(n), s[i:]
}

// setSave is setConfigSaveOption: pairs of seconds (>= 1) and changes
// (>= 0); "" saves never. Changes are a C int.
func setSave(c *Config, v string) (string, string) {
	args := splitArgs(v)
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	if len(args)%2 != 0 {
		return "", "Invalid save parameters"
	}
	parts := make([]string, 0, len(args))
	for j, a := range args {
		n, rest := strtoll(a)
		if rest != "" || (j%2 == 0 && n < 1) || (j%2 == 1 && n < 0) {
			return "", "Invalid save parameters"
		}
		if j%2 == 1 {
			n = int64(int32(n))
		}
		parts = append(parts, strconv.FormatInt(n, 10))
	}
	return strings.Join(parts, " "), ""
}

var outputBufferClasses = []string{"normal", "slave", "pubsub"}

// setOutputBufferLimit is updateClientOutputBufferLimit: groups of class,
// hard limit, soft limit and soft seconds, all checked before any is
// taken; the classes given replace theirs, the others stay.
func setOutputBufferLimit(c *Config, v string) (string, string) {
	f := splitArgs(v)
	if len(f)%4 != 0 {
		return "", "Wrong number of arguments in buffer limit configuration."
	}
	cur := map[string][3]string{}
	old := strings.Fields(c.other["client-output-buffer-limit"])
	for i := 0; i+3 < len(old); i += 4 {
		cur[old[i]] = [3]string{old[i+1], old[i+2], old[i+3]}
	}
	for i := 0; i < len(f); i += 4 {
		class := strings.ToLower(f[i])
		switch class {
		case "normal", "slave", "pubsub":
		case "replica":
			class = "slave"
		default:
			return "", "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := memtoull(f[i+1])
		soft, ok2 := memtoull(f[i+2])
		secs, rest := strtoll(f[i+3])
		secs = int64(int32(secs))
		if !ok1 || !ok2 || secs < 0 || rest != "" {
			return "", "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		cur[class] = [3]string{strconv.FormatUint(hard, 10), strconv.FormatUint(soft, 10), strconv.FormatInt(secs, 10)}
	}
	var parts []string
	for _, class := range outputBufferClasses {
		l := cur[class]
		parts = append(parts, class, l[0], l[1], l[2])
	}
	return strings.Join(parts, " "), ""
}

// parseOutputBufferLimits reads the value setOutputBufferLimit made.
func parseOutputBufferLimits(v string) [3]OutputBufferLimit {
	var out [3]OutputBufferLimit
	f := strings.Fields(v)
	for i := 0; i+3 < len(f); i += 4 {
		hard, _ := strconv.ParseUint(f[i+1], 10, 64)
		soft, _ := strconv.ParseUint(f[i+2], 10, 64)
		secs, _ := strconv.ParseInt(f[i+3], 10, 64)
		l := OutputBufferLimit{Hard: hard, Soft: soft, SoftSeconds: secs}
		switch f[i] {
		case "normal":
			out[ClassNormal] = l
		case "slave":
			out[ClassReplica] = l
		case "pubsub":
			out[ClassPubSub] = l
		}
	}
	return out
}

// setOOMScoreAdjValues is setConfigOOMScoreAdjValuesOption.
func setOOMScoreAdjValues(c *Config, v string) (string, string) {
	args := splitArgs(v)
	if len(args) != 3 {
		return "", "wrong number of arguments"
	}
	out := make([]string, 3)
	for i, a := range args {
		n, rest := strtoll(a)
		if rest != "" || n < -2000 || n > 2000 {
			return "", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
		out[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, " "), ""
}

// setBind is setConfigBindOption with applyBind: at most 16 addresses,
// each one lockkv could listen on (an IP address, optionally prefixed by
// "-", or "*"). lockkv does not move its listener.
func setBind(c *Config, v string) (string, string) {
	args := splitArgs(v)
	if len(args) > 16 {
		return "", "Too many bind addresses specified."
	}
	if len(args) == 1 && args[0] == "" {
		return "", ""
	}
	for _, a := range args {
		a = strings.TrimPrefix(a, "-")
		if a != "*" && a != "::*" && net.ParseIP(a) == nil {
			return "", "Failed to bind to specified addresses."
		}
	}
	return strings.Join(args, " "), ""
}

// setLatencyPercentiles is setConfigLatencyTrackingInfoPercentilesOutputOption;
// values are shown as "%f" without trailing zeros, and INFO latencystats
// uses them as parsed (c.latencyPercentiles), as Redis keeps its doubles.
func setLatencyPercentiles(c *Config, v string) (string, string) {
	args := splitArgs(v)
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	out := make([]string, 0, len(args))
	vals := make([]float64, 0, len(args))
	for _, a := range args {
		f, ok := redisnum.ParseFloat([]byte(a)) // string2d
		if !ok {
			return "", "Invalid latency-tracking-info-percentiles parameters"
		}
		if f > 100 || f < 0 {
			return "", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		out = append(out, FormatPercentile(f))
		vals = append(vals, f)
	}
	c.latencyPercentiles = vals
	return strings.Join(out, " "), ""
}

// shutdownFlags are shutdown-on-sigint's and shutdown-on-sigterm's flags
// (a bit each but "default", which is none).
var shutdownFlags = []string{"default", "save", "nosave", "now", "force"}

// setShutdownOnSig parses a flag set ("save now"), shown in the order of
// shutdownFlags, "default" when empty.
func setShutdownOnSig(c *Config, v string) (string, string) {
	var bits int
	for _, a := range splitArgsAtLeastOne(v) {
		found := false
		for i, f := range shutdownFlags {
			if strings.EqualFold(a, f) {
				if i > 0 {
					bits |= 1 << (i - 1)
				}
				found = true
				break
			}
		}
		if !found {
			return "", "argument(s) must be one of the following: " + strings.Join(shutdownFlags, ", ")
		}
	}
	if bits&1 != 0 && bits&2 != 0 {
		return "", "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	if bits == 0 {
		return "default", ""
	}
	var names []string
	for i, f := range shutdownFlags[1:] {
		if bits&(1<<i) != 0 {
			names = append(names, f)
		}
	}
	return strings.Join(names, " "), ""
}

// splitArgsAtLeastOne is splitArgs for a value Redis always sees as one
// argument or more ("" is one empty argument).
func splitArgsAtLeastOne(v string) []string {
	if v == "" {
		return []string{""}
	}
	return splitArgs(v)
}

// checkHostname is isValidAnnouncedHostname.
// checkDir is what chdir(2) would refuse in Redis's setConfigDirOption.
func checkDir(v string) string {
	fi, err := os.Stat(v)
	switch {
	case err != nil:
		return redisconf.Strerror(err)
	case !fi.IsDir():
		return "Not a directory"
	}
	return ""
}

// checkDBFilename is isValidDBfilename.
func checkDBFilename(v string) string {
	if filepath.Base(v) != v || v == "" || v == "." || v == ".." {
		return "dbfilename can't be a path, just a filename"
	}
	return ""
}

func checkHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

// checkProcTitleTemplate is validateProcTitleTemplate: the template must
// expand (sdstemplate: "{{" is a brace, {name} a known variable) to
// something other than spaces with an empty title.
func checkProcTitleTemplate(v string) string {
	const bad = "template format is invalid or contains unknown variables"
	vars := map[string]string{"title": "", "listen-addr": "*:6379", "server-mode": "",
		"port": "6379", "tls-port": "0", "unixsocket": "", "config-file": ""}
	var out strings.Builder
	for p := v; p != ""; {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			out.WriteString(p)
			break
		}
		out.WriteString(p[:i])
		p = p[i+1:]
		if p == "" {
			return bad
		}
		if p[0] == '{' {
			out.WriteByte('{')
			p = p[1:]
			continue
		}
		j := strings.IndexByte(p, '}')
		if j < 0 {
			return bad
		}
		val, ok := vars[p[:j]]
		if !ok {
			return bad
		}
		out.WriteString(val)
		p = p[j+1:]
	}
	if strings.Trim(out.String(), " ") == "" {
		return bad
	}
	return ""
}

// FormatPercentile is a percentile as Redis shows it: "%f", trailing
// zeros and point trimmed (trimDoubleString).
func FormatPercentile(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// SetClustered marks the settings of a Raft node: the Redis replication
// and Redis Cluster settings then only take their current values.
func (c *Config) SetClustered() { c.clustered = true }

// LatencyPercentiles are latency-tracking-info-percentiles, as parsed.
func (c *Config) LatencyPercentiles() []float64 { return c.latencyPercentiles }
