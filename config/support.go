package config

import (
	"log/slog"
	"strings"
)

// What lockkv does with each setting
//
// CONFIG SET answers OK only when the new value is true of lockkv. Every
// setting of the table in config.go is in exactly one class here
// (TestConfigSupportComplete):
//
//   - honoured: lockkv acts on the value as Redis does.
//   - inert: accepted and reported, because no value can change what a
//     client of lockkv sees: tuning of Redis internals whose result lockkv
//     gives anyway (lazyfree, rehashing, defrag tuning), or a subsystem
//     that is off in lockkv and whose on-switch is refused or immutable
//     (RDB and AOF tuning).
//   - replication: Redis replication and Redis Cluster settings. A
//     standalone server, like a Redis master without replicas and with
//     cluster-enabled no, is untouched by them: inert. On a Raft node they
//     would suggest control over lockkv's own replication and its CLUSTER
//     answers, which they do not give: only the current value is accepted.
//   - fixed: lockkv does not implement other values; only the current one
//     is accepted, so CONFIG SET appendonly no still answers OK.
//   - immutable: Redis refuses CONFIG SET itself ("can't set immutable
//     config"); the value is reported.
//
// A refused value fails as Redis's apply stage fails: after every value
// of the command was validated, with Redis's CONFIG SET error format and
// a reason that names what lockkv does not support, and nothing changes.
// Settings with a refuse function (save, shutdown-on-sigint, ...) accept
// some values and refuse others.

type supportClass int

const (
	honoured supportClass = iota
	inert
	replication
	fixed
	immutable
)

type support struct {
	class supportClass
	// what completes "lockkv does not support ..." for a refused value.
	what string
	// refuse, when set, decides about a validated value v (canonical) of
	// an honoured or inert setting whose value was old: the reason, or "".
	refuse func(c *Config, old, v string) string
}

func sup(class supportClass, what string) support { return support{class: class, what: what} }

var (
	isHonoured    = sup(honoured, "")
	isInert       = sup(inert, "")
	isReplication = sup(replication, "changing Redis replication and Redis Cluster settings on a Raft node")
	isImmutable   = sup(immutable, "")
	tlsFixed      = sup(fixed, "changing TLS settings at run time (they are set when lockkv starts: --tls-*)")
)

var settingSupport = map[string]support{
	// Honoured.
	"databases":                         isHonoured, // immutable besides
	"dir":                               isHonoured, // protected besides; where SAVE writes
	"dbfilename":                        isHonoured, // protected besides
	"requirepass":                       isHonoured,
	"maxclients":                        isHonoured,
	"tracking-table-max-keys":           isHonoured,
	"notify-keyspace-events":            isHonoured,
	"timeout":                           isHonoured,
	"hz":                                isHonoured,
	"slowlog-log-slower-than":           isHonoured,
	"slowlog-max-len":                   isHonoured,
	"latency-monitor-threshold":         isHonoured,
	"latency-tracking":                  isHonoured,
	"latency-tracking-info-percentiles": isHonoured,
	"hash-max-listpack-entries":         isHonoured,
	"hash-max-listpack-value":           isHonoured,
	"set-max-intset-entries":            isHonoured,
	"zset-max-listpack-entries":         isHonoured,
	"zset-max-listpack-value":           isHonoured,
	"busy-reply-threshold":              isHonoured,
	"lfu-log-factor":                    isHonoured,
	"lfu-decay-time":                    isHonoured,
	"protected-mode":                    isHonoured,
	"tcp-keepalive":                     isHonoured,
	"io-threads":                        isHonoured, // immutable besides
	"enable-debug-command":              isHonoured, // immutable besides
	"enable-protected-configs":          isHonoured, // immutable besides
	"loglevel": {class: honoured, refuse: func(c *Config, old, v string) string {
		if c.LogLevel == nil && v != old {
			return "changing the log level of a server embedded without one"
		}
		return ""
	}},

	// The resource limits.
	// maxmemory with noeviction, the only policy lockkv has (evicting a
	// lock hands it out twice): configSet refuses a limit with another
	// policy; a policy alone still picks LRU or LFU access data.
	"maxmemory":                   isHonoured,
	"maxmemory-policy":            isHonoured,
	"maxmemory-samples":           isInert,
	"maxmemory-eviction-tenacity": isInert,
	"maxmemory-clients":           sup(fixed, "client eviction (maxmemory-clients)"),
	"client-output-buffer-limit":  isHonoured,
	"client-query-buffer-limit":   isHonoured,
	"proto-max-bulk-len":          isHonoured,

	// Only the current value.
	"port":                     sup(fixed, "moving its listener (--addr)"),
	"bind":                     sup(fixed, "moving its listener (--addr)"),
	"tls-port":                 tlsFixed,
	"tls-cert-file":            tlsFixed,
	"tls-key-file":             tlsFixed,
	"tls-key-file-pass":        tlsFixed,
	"tls-client-cert-file":     tlsFixed,
	"tls-client-key-file":      tlsFixed,
	"tls-client-key-file-pass": tlsFixed,
	"tls-dh-params-file":       tlsFixed,
	"tls-ca-cert-file":         tlsFixed,
	"tls-ca-cert-dir":          tlsFixed,
	"tls-protocols":            tlsFixed,
	"tls-ciphers":              tlsFixed,
	"tls-ciphersuites":         tlsFixed,
	"tls-auth-clients":         tlsFixed,
	"save":                     sup(fixed, "automatic RDB snapshots (SAVE and BGSAVE work)"),
	"appendonly":               sup(fixed, "the append-only file (a cluster node with --data-dir logs every write through Raft)"),
	"rdbcompression":           sup(fixed, "uncompressed RDB payloads (DUMP, FUNCTION DUMP, SAVE and BGSAVE always compress)"),
	"min-replicas-to-write":    sup(fixed, "refusing writes for want of replicas"),
	"oom-score-adj":            sup(fixed, "adjusting its OOM score"),
	"proc-title-template":      sup(fixed, "setting its process title"),
	"bind-source-addr":         sup(fixed, "choosing the source address of its connections"),
	// Redis as packaged refuses yes itself (activedefrag's check).
	"activedefrag":        isInert,
	"shutdown-on-sigint":  {class: inert, refuse: refuseShutdownSave},
	"shutdown-on-sigterm": {class: inert, refuse: refuseShutdownSave},

	// Redis replication and Redis Cluster.
	"repl-disable-tcp-nodelay":            isReplication,
	"repl-diskless-sync":                  isReplication,
	"repl-diskless-sync-delay":            isReplication,
	"repl-diskless-sync-max-replicas":     isReplication,
	"repl-diskless-load":                  isReplication,
	"repl-backlog-size":                   isReplication,
	"repl-backlog-ttl":                    isReplication,
	"repl-timeout":                        isReplication,
	"repl-ping-replica-period":            isReplication,
	"replica-lazy-flush":                  isReplication,
	"replica-serve-stale-data":            isReplication,
	"replica-read-only":                   isReplication,
	"replica-ignore-maxmemory":            isReplication,
	"replica-priority":                    isReplication,
	"replica-announce-ip":                 isReplication,
	"replica-announce-port":               isReplication,
	"replica-announced":                   isReplication,
	"replica-ignore-disk-write-errors":    isReplication,
	"masterauth":                          isReplication,
	"masteruser":                          isReplication,
	"min-replicas-max-lag":                isReplication,
	"cluster-require-full-coverage":       isReplication,
	"cluster-replica-no-failover":         isReplication,
	"cluster-allow-reads-when-down":       isReplication,
	"cluster-allow-pubsubshard-when-down": isReplication,
	"cluster-allow-replica-migration":     isReplication,
	"cluster-announce-ip":                 isReplication,
	"cluster-announce-hostname":           isReplication,
	"cluster-preferred-endpoint-type":     isReplication,
	"cluster-replica-validity-factor":     isReplication,
	"cluster-migration-barrier":           isReplication,
	"cluster-announce-bus-port":           isReplication,
	"cluster-announce-port":               isReplication,
	"cluster-announce-tls-port":           isReplication,
	"cluster-node-timeout":                isReplication,
	"cluster-link-sendbuf-limit":          isReplication,
	"tls-cluster":                         isReplication,
	"tls-replication":                     isReplication,
	"propagation-error-behavior":          isReplication,
	"shutdown-timeout":                    isReplication, // waits for replicas to catch up

	// Inert: Redis internals whose result lockkv gives anyway.
	"activerehashing":               isInert,
	"dynamic-hz":                    isInert,
	"lazyfree-lazy-eviction":        isInert,
	"lazyfree-lazy-expire":          isInert,
	"lazyfree-lazy-server-del":      isInert,
	"lazyfree-lazy-user-del":        isInert,
	"lazyfree-lazy-user-flush":      isInert,
	"jemalloc-bg-thread":            isInert,
	"active-defrag-cycle-min":       isInert,
	"active-defrag-cycle-max":       isInert,
	"active-defrag-threshold-lower": isInert,
	"active-defrag-threshold-upper": isInert,
	"active-defrag-max-scan-fields": isInert,
	"active-defrag-ignore-bytes":    isInert,
	"active-expire-effort":          isInert,
	"list-max-listpack-size":        isInert, // 7.0 reports every list as quicklist
	"list-compress-depth":           isInert,
	"sanitize-dump-payload":         isInert, // lockkv checks every payload fully
	"crash-log-enabled":             isInert,
	"crash-memcheck-enabled":        isInert,
	"use-exit-on-panic":             isInert,
	"ignore-warnings":               isInert,
	"watchdog-period":               isInert,
	"tls-session-caching":           isInert,
	"tls-session-cache-size":        isInert,
	"tls-session-cache-timeout":     isInert,
	"tls-prefer-server-ciphers":     isInert,
	"acl-pubsub-default":            isInert, // no ACL SETUSER
	"acllog-max-len":                isInert, // no ACL LOG
	"stream-node-max-entries":       isInert, // no streams
	"stream-node-max-bytes":         isInert,
	"hll-sparse-max-bytes":          isInert, // no HyperLogLog
	"oom-score-adj-values":          isInert, // oom-score-adj stays no
	// RDB and AOF, which are never written (save and appendonly are
	// fixed off).
	"rdb-del-sync-files":                    isInert,
	"stop-writes-on-bgsave-error":           isInert,
	"rdb-save-incremental-fsync":            isInert,
	"aof-rewrite-incremental-fsync":         isInert,
	"no-appendfsync-on-rewrite":             isInert,
	"aof-load-truncated":                    isInert,
	"aof-use-rdb-preamble":                  isInert,
	"aof-timestamp-enabled":                 isInert,
	"aof-disable-auto-gc":                   isInert,
	"appendfsync":                           isInert,
	"auto-aof-rewrite-percentage":           isInert,
	"auto-aof-rewrite-min-size":             isInert,
	"rdb-key-save-delay":                    isInert,
	"key-load-delay":                        isInert,
	"loading-process-events-interval-bytes": isInert,

	// Immutable. A config file may set them (LoadDirective): those lockkv
	// does not act on take only their default there.
	"rdbchecksum":           isImmutable,
	"daemonize":             onlyDefault("no", "daemonizing (run lockkv under a supervisor: systemd, docker)"),
	"io-threads-do-reads":   isImmutable,
	"always-show-logo":      isImmutable,
	"set-proc-title":        isImmutable,
	"syslog-enabled":        onlyDefault("no", "syslog (it logs to stderr or --logfile)"),
	"cluster-enabled":       onlyDefault("no", "Redis Cluster mode (a lockkv cluster is formed with --node-id and --peers, and answers CLUSTER without it)"),
	"disable-thp":           isImmutable,
	"aclfile":               onlyDefault("", "ACL files"),
	"unixsocket":            onlyDefault("", "unix sockets"),
	"pidfile":               onlyDefault("", "pid files"),
	"cluster-config-file":   isImmutable,
	"syslog-ident":          isImmutable,
	"appendfilename":        isImmutable,
	"appenddirname":         isImmutable,
	"server_cpulist":        onlyDefault("", "CPU affinity"),
	"bio_cpulist":           onlyDefault("", "CPU affinity"),
	"aof_rewrite_cpulist":   onlyDefault("", "CPU affinity"),
	"bgsave_cpulist":        onlyDefault("", "CPU affinity"),
	"logfile":               isImmutable, // cmd/lockkv honours it (--logfile)
	"supervised":            onlyDefault("no", "supervision protocols (run it as a systemd Type=exec service)"),
	"syslog-facility":       isImmutable,
	"enable-module-command": isImmutable, // lockkv has no MODULE command
	"tcp-backlog":           isImmutable,
	"cluster-port":          isImmutable,
	"socket-mark-id":        onlyDefault("0", "socket marks"),
	"unixsocketperm":        isImmutable,
	"replicaof":             onlyDefault("", "Redis replication (replicaof): a lockkv cluster replicates with Raft"),
}

// onlyDefault is an immutable setting lockkv does not act on: a config
// file may give it its default only.
func onlyDefault(dflt, what string) support {
	return support{class: immutable, refuse: func(c *Config, old, v string) string {
		if v != dflt {
			return what + " (only '" + dflt + "' is accepted)"
		}
		return ""
	}}
}

// refusal returns why lockkv refuses the validated value v of s, whose
// value was old before this CONFIG SET, or "" when it takes it. The text
// follows "CONFIG SET failed (possibly related to argument '...') - ".
func (s *setting) refusal(c *Config, old, v string) string {
	sp := settingSupport[s.name]
	if sp.refuse != nil {
		if why := sp.refuse(c, old, v); why != "" {
			return "lockkv does not support " + why
		}
		return ""
	}
	switch sp.class {
	case fixed:
	case replication:
		if !c.clustered {
			return ""
		}
	default:
		return ""
	}
	if v == old {
		return ""
	}
	return "lockkv does not support " + sp.what + " (only '" + old + "' is accepted)"
}

// refuseShutdownSave refuses shutdown-on-sigint/sigterm with save: lockkv
// has nothing to save. nosave, now and force describe what it does anyway.
func refuseShutdownSave(c *Config, old, v string) string {
	for _, f := range strings.Fields(v) {
		if f == "save" {
			return "saving on shutdown (no RDB snapshots)"
		}
	}
	return ""
}

// Log levels: Redis's names for slog levels. verbose sits between Debug
// and Info; slog's Error reads as warning, Redis's most severe level.
var logLevelNames = []string{"debug", "verbose", "notice", "warning"}

const levelVerbose = slog.LevelDebug + 2

// LogLevelName is the loglevel CONFIG GET shows for l.
func LogLevelName(l slog.Level) string {
	switch {
	case l <= slog.LevelDebug:
		return "debug"
	case l <= levelVerbose:
		return "verbose"
	case l <= slog.LevelInfo:
		return "notice"
	}
	return "warning"
}

// ParseLogLevel reads a Redis log level name.
func ParseLogLevel(name string) (slog.Level, bool) {
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug, true
	case "verbose":
		return levelVerbose, true
	case "notice":
		return slog.LevelInfo, true
	case "warning":
		return slog.LevelWarn, true
	}
	return 0, false
}

func readLogLevel(c *Config) string {
	if c.LogLevel != nil {
		return LogLevelName(c.LogLevel.Level())
	}
	return c.other["loglevel"]
}

func applyLogLevel(c *Config, v string) {
	if c.LogLevel != nil {
		l, _ := ParseLogLevel(v)
		c.LogLevel.Set(l)
		return
	}
	c.other["loglevel"] = v
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
