package engine

import (
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lockkv/lockkv/internal/buildinfo"
	"github.com/lockkv/lockkv/internal/hdrhist"
)

// INFO, with Redis 7.0's sections and field names. Fields lockkv has no
// counterpart for (fork, AOF, replication backlog) report what an idle
// Redis without persistence or replicas reports.

var infoCommands = []*Spec{
	{Name: "info", Arity: -1, Flags: Loading | Stale, ACL: []string{"dangerous"}, Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}, Fn: info},
}

func init() { Register(infoCommands) }

// info helpers

// infoSections in output order. "default" are those INFO prints without
// arguments; "all" adds commandstats and latencystats.
var infoSections = []struct {
	name    string
	title   string
	dflt    bool
	section func(e *Engine, b []byte, now int64) []byte
}{
	{"server", "Server", true, infoServer},
	{"clients", "Clients", true, infoClients},
	{"memory", "Memory", true, infoMemory},
	{"persistence", "Persistence", true, infoPersistence},
	{"stats", "Stats", true, infoStats},
	{"replication", "Replication", true, infoReplication},
	{"cpu", "CPU", true, infoCPU},
	{"modules", "Modules", true, nil},
	{"commandstats", "Commandstats", false, infoCommandStats},
	{"errorstats", "Errorstats", true, infoErrorStats},
	{"latencystats", "Latencystats", false, infoLatencyStats},
	{"cluster", "Cluster", true, infoCluster},
	{"keyspace", "Keyspace", true, infoKeyspace},
}

func kv(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ':')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

func kvi(b []byte, k string, v int64) []byte {
	b = append(b, k...)
	b = append(b, ':')
	b = strconv.AppendInt(b, v, 10)
	return append(b, '\r', '\n')
}

// humanBytes formats n as Redis's bytesToHuman does.
func humanBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		return strconv.FormatFloat(f/1024, 'f', 2, 64) + "K"
	case n < 1024*1024*1024:
		return strconv.FormatFloat(f/(1024*1024), 'f', 2, 64) + "M"
	case n < 1024*1024*1024*1024:
		return strconv.FormatFloat(f/(1024*1024*1024), 'f', 2, 64) + "G"
	}
	return strconv.FormatFloat(f/(1024*1024*1024*1024), 'f', 2, 64) + "T"
}

func infoServer(e *Engine, b []byte, now int64) []byte {
	b = kv(b, "redis_version", buildinfo.RedisVersion)
	b = kv(b, "redis_git_sha1", "00000000")
	b = kv(b, "redis_git_dirty", "0")
	b = kv(b, "redis_build_id", "0")
	b = kv(b, "redis_mode", e.redisMode())
	b = kv(b, "os", osName())
	b = kvi(b, "arch_bits", 64)
	b = kv(b, "monotonic_clock", "POSIX clock_gettime")
	b = kv(b, "multiplexing_api", "epoll")
	b = kv(b, "atomicvar_api", "c11-builtin")
	b = kv(b, "gcc_version", "0.0.0")
	b = kvi(b, "process_id", int64(os.Getpid()))
	b = kv(b, "process_supervised", "no")
	b = kv(b, "run_id", e.RunID)
	b = kvi(b, "tcp_port", int64(e.Config.Port))
	b = kvi(b, "server_time_usec", e.Clock.Now().UnixMicro())
	up := (now - e.StartTime.UnixMilli()) / 1000
	b = kvi(b, "uptime_in_seconds", up)
	b = kvi(b, "uptime_in_days", up/86400)
	b = kvi(b, "hz", int64(e.Config.Hz))
	b = kvi(b, "configured_hz", int64(e.Config.Hz))
	b = kvi(b, "lru_clock", (now/1000)&(1<<24-1))
	exe, _ := os.Executable()
	b = kv(b, "executable", exe)
	b = kv(b, "config_file", e.Config.ConfigFile)
	b = kvi(b, "io_threads_active", 0)
	// lockkv's own, after Redis's fields (redis_git_sha1 and friends stay
	// what a Redis 7.0.15 from a release tarball says).
	bi := buildinfo.Get()
	b = kv(b, "lockkv_version", bi.Version)
	b = kv(b, "lockkv_git_sha1", bi.ShortRevision())
	b = kv(b, "lockkv_git_dirty", bi.Dirty())
	return b
}

func infoClients(e *Engine, b []byte, now int64) []byte {
	blocked := 0
	tracking, _, _, _ := e.TrackingStats()
	for _, cl := range e.clients {
		if cl.held() { // WAIT blocks too (BLOCKED_WAIT)
			blocked++
		}
	}
	b = kvi(b, "connected_clients", int64(len(e.clients)))
	b = kvi(b, "cluster_connections", 0)
	b = kvi(b, "maxclients", int64(e.Config.MaxClients))
	b = kvi(b, "client_recent_max_input_buffer", 0)
	b = kvi(b, "client_recent_max_output_buffer", 0)
	b = kvi(b, "blocked_clients", int64(blocked))
	b = kvi(b, "tracking_clients", int64(tracking))
	b = kvi(b, "clients_in_timeout_table", int64(e.ClientsInTimeoutTable()))
	return b
}

func infoMemory(e *Engine, b []byte, now int64) []byte {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// used_memory is what maxmemory is compared with (see evict.go): the
	// live heap as of the last collection.
	e.mem.sampledAt = 0
	used := int64(e.usedMemory())
	rss := int64(ms.Sys)
	b = kvi(b, "used_memory", used)
	b = kv(b, "used_memory_human", humanBytes(used))
	b = kvi(b, "used_memory_rss", rss)
	b = kv(b, "used_memory_rss_human", humanBytes(rss))
	b = kvi(b, "used_memory_peak", used)
	b = kv(b, "used_memory_peak_human", humanBytes(used))
	b = kv(b, "used_memory_peak_perc", "100.00%")
	b = kvi(b, "used_memory_overhead", 0)
	b = kvi(b, "used_memory_startup", 0)
	b = kvi(b, "used_memory_dataset", used)
	b = kv(b, "used_memory_dataset_perc", "100.00%")
	b = kvi(b, "allocator_allocated", used)
	b = kvi(b, "allocator_active", int64(ms.HeapInuse))
	b = kvi(b, "allocator_resident", rss)
	b = kvi(b, "total_system_memory", 0)
	b = kv(b, "total_system_memory_human", "0B")
	b = kvi(b, "used_memory_lua", 0)
	b = kvi(b, "used_memory_vm_eval", 0)
	b = kv(b, "used_memory_lua_human", "0B")
	b = kvi(b, "used_memory_scripts_eval", 0)
	b = kvi(b, "number_of_cached_scripts", 0)
	b = kvi(b, "number_of_functions", 0)
	b = kvi(b, "number_of_libraries", 0)
	b = kvi(b, "used_memory_vm_functions", 0)
	b = kvi(b, "used_memory_vm_total", 0)
	b = kv(b, "used_memory_vm_total_human", "0B")
	b = kvi(b, "used_memory_functions", 0)
	b = kvi(b, "used_memory_scripts", 0)
	b = kv(b, "used_memory_scripts_human", "0B")
	b = kv(b, "maxmemory", strconv.FormatUint(e.Config.Maxmemory, 10))
	b = kv(b, "maxmemory_human", humanBytes(int64(e.Config.Maxmemory)))
	b = kv(b, "maxmemory_policy", e.Config.String("maxmemory-policy"))
	b = kv(b, "allocator_frag_ratio", "1.00")
	b = kvi(b, "allocator_frag_bytes", 0)
	b = kv(b, "allocator_rss_ratio", "1.00")
	b = kvi(b, "allocator_rss_bytes", 0)
	b = kv(b, "rss_overhead_ratio", "1.00")
	b = kvi(b, "rss_overhead_bytes", 0)
	b = kv(b, "mem_fragmentation_ratio", "1.00")
	b = kvi(b, "mem_fragmentation_bytes", 0)
	b = kvi(b, "mem_not_counted_for_evict", 0)
	b = kvi(b, "mem_replication_backlog", 0)
	b = kvi(b, "mem_total_replication_buffers", 0)
	b = kvi(b, "mem_clients_slaves", 0)
	b = kvi(b, "mem_clients_normal", 0)
	b = kvi(b, "mem_cluster_links", 0)
	b = kvi(b, "mem_aof_buffer", 0)
	b = kv(b, "mem_allocator", "libc")
	b = kvi(b, "active_defrag_running", 0)
	b = kvi(b, "lazyfree_pending_objects", 0)
	b = kvi(b, "lazyfreed_objects", 0)
	return b
}

func infoPersistence(e *Engine, b []byte, now int64) []byte {
	for _, f := range []string{"loading", "async_loading", "current_cow_peak", "current_cow_size", "current_cow_size_age"} {
		b = kvi(b, f, 0)
	}
	b = kv(b, "current_fork_perc", "0.00")
	b = kvi(b, "current_save_keys_processed", 0)
	b = kvi(b, "current_save_keys_total", 0)
	e.settleSaves()
	b = kvi(b, "rdb_changes_since_last_save", e.Stats.Dirty)
	b = kvi(b, "rdb_bgsave_in_progress", b2i(e.saves.inProgress.Load()))
	b = kvi(b, "rdb_last_save_time", e.saves.lastSave.Load())
	b = kv(b, "rdb_last_bgsave_status", e.saves.status())
	b = kvi(b, "rdb_last_bgsave_time_sec", e.saves.lastBgsaveSec.Load())
	b = kvi(b, "rdb_current_bgsave_time_sec", e.saves.currentSec())
	b = kvi(b, "rdb_saves", e.saves.count.Load())
	b = kvi(b, "rdb_last_cow_size", 0)
	b = kvi(b, "rdb_last_load_keys_expired", e.saves.expired)
	b = kvi(b, "rdb_last_load_keys_loaded", e.saves.loaded)
	aof := int64(0)
	if e.Config.String("appendonly") == "yes" {
		aof = 1
	}
	b = kvi(b, "aof_enabled", aof)
	b = kvi(b, "aof_rewrite_in_progress", 0)
	b = kvi(b, "aof_rewrite_scheduled", 0)
	b = kvi(b, "aof_last_rewrite_time_sec", -1)
	b = kvi(b, "aof_current_rewrite_time_sec", -1)
	b = kv(b, "aof_last_bgrewrite_status", "ok")
	b = kvi(b, "aof_rewrites", 0)
	b = kvi(b, "aof_rewrites_consecutive_failures", 0)
	b = kv(b, "aof_last_write_status", "ok")
	b = kvi(b, "aof_last_cow_size", 0)
	b = kvi(b, "module_fork_in_progress", 0)
	b = kvi(b, "module_fork_last_cow_size", 0)
	if aof == 1 {
		for _, f := range []string{"aof_current_size", "aof_base_size", "aof_pending_rewrite",
			"aof_buffer_length", "aof_pending_bio_fsync", "aof_delayed_fsync"} {
			b = kvi(b, f, 0)
		}
	}
	return b
}

func infoStats(e *Engine, b []byte, now int64) []byte {
	s := &e.Stats
	b = kvi(b, "total_connections_received", s.Connections)
	b = kvi(b, "total_commands_processed", s.Commands)
	b = kvi(b, "instantaneous_ops_per_sec", 0)
	b = kvi(b, "total_net_input_bytes", s.NetInputBytes)
	b = kvi(b, "total_net_output_bytes", s.NetOutputBytes)
	b = kvi(b, "total_net_repl_input_bytes", 0)
	b = kvi(b, "total_net_repl_output_bytes", 0)
	b = kv(b, "instantaneous_input_kbps", "0.00")
	b = kv(b, "instantaneous_output_kbps", "0.00")
	b = kv(b, "instantaneous_input_repl_kbps", "0.00")
	b = kv(b, "instantaneous_output_repl_kbps", "0.00")
	b = kvi(b, "rejected_connections", s.RejectedConns)
	b = kvi(b, "sync_full", 0)
	b = kvi(b, "sync_partial_ok", 0)
	b = kvi(b, "sync_partial_err", 0)
	b = kvi(b, "expired_keys", s.ExpiredKeys)
	b = kv(b, "expired_stale_perc", "0.00")
	b = kvi(b, "expired_time_cap_reached_count", 0)
	b = kvi(b, "expire_cycle_cpu_milliseconds", 0)
	b = kvi(b, "evicted_keys", 0)
	b = kvi(b, "evicted_clients", 0)
	b = kvi(b, "total_eviction_exceeded_time", 0)
	b = kvi(b, "current_eviction_exceeded_time", 0)
	b = kvi(b, "keyspace_hits", s.KeyspaceHits)
	b = kvi(b, "keyspace_misses", s.KeyspaceMisses)
	channels, patterns, shard := e.PubSubCounts()
	b = kvi(b, "pubsub_channels", int64(channels))
	b = kvi(b, "pubsub_patterns", int64(patterns))
	b = kvi(b, "pubsubshard_channels", int64(shard))
	b = kvi(b, "latest_fork_usec", 0)
	b = kvi(b, "total_forks", 0)
	b = kvi(b, "migrate_cached_sockets", 0)
	b = kvi(b, "slave_expires_tracked_keys", 0)
	for _, f := range []string{"active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits",
		"active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time"} {
		b = kvi(b, f, 0)
	}
	_, tkeys, titems, tprefixes := e.TrackingStats()
	b = kvi(b, "tracking_total_keys", int64(tkeys))
	b = kvi(b, "tracking_total_items", int64(titems))
	b = kvi(b, "tracking_total_prefixes", int64(tprefixes))
	b = kvi(b, "unexpected_error_replies", s.UnexpectedErrors)
	b = kvi(b, "total_error_replies", s.TotalErrorReplies)
	b = kvi(b, "dump_payload_sanitizations", 0)
	b = kvi(b, "total_reads_processed", s.Commands)
	b = kvi(b, "total_writes_processed", s.Commands)
	b = kvi(b, "io_threaded_reads_processed", 0)
	b = kvi(b, "io_threaded_writes_processed", 0)
	b = kvi(b, "reply_buffer_shrinks", 0)
	b = kvi(b, "reply_buffer_expands", 0)
	return b
}

func infoReplication(e *Engine, b []byte, now int64) []byte {
	if e.Cluster != nil {
		return e.infoReplicationCluster(b, now)
	}
	b = kv(b, "role", "master")
	b = kvi(b, "connected_slaves", 0)
	b = kv(b, "master_failover_state", "no-failover")
	b = kv(b, "master_replid", e.RunID)
	b = kv(b, "master_replid2", "0000000000000000000000000000000000000000")
	b = kvi(b, "master_repl_offset", 0)
	b = kvi(b, "second_repl_offset", -1)
	b = kvi(b, "repl_backlog_active", 0)
	b = kvi(b, "repl_backlog_size", 1048576)
	b = kvi(b, "repl_backlog_first_byte_offset", 0)
	b = kvi(b, "repl_backlog_histlen", 0)
	return b
}

func infoCPU(e *Engine, b []byte, now int64) []byte {
	sys, user, csys, cuser := cpuTimes()
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	b = kv(b, "used_cpu_sys", f(sys))
	b = kv(b, "used_cpu_user", f(user))
	b = kv(b, "used_cpu_sys_children", f(csys))
	b = kv(b, "used_cpu_user_children", f(cuser))
	b = kv(b, "used_cpu_sys_main_thread", f(sys))
	b = kv(b, "used_cpu_user_main_thread", f(user))
	return b
}

func infoCluster(e *Engine, b []byte, now int64) []byte {
	if e.Cluster != nil {
		return kvi(b, "cluster_enabled", 1)
	}
	return kvi(b, "cluster_enabled", 0)
}

func infoKeyspace(e *Engine, b []byte, now int64) []byte {
	for i, db := range e.DBs {
		n := db.Len()
		if n == 0 {
			continue
		}
		b = append(b, "db"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ":keys="...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ",expires="...)
		b = strconv.AppendInt(b, int64(db.ExpiresLen()), 10)
		b = append(b, ",avg_ttl=0\r\n"...)
	}
	return b
}

// Info renders INFO's text for the given section names (lower case;
// none means "default").
func (e *Engine) Info(now int64, names ...string) string {
	want := map[string]bool{}
	all, everything, dflt := false, false, len(names) == 0
	for _, n := range names {
		switch n {
		case "all":
			all = true
		case "everything":
			everything = true
		case "default":
			dflt = true
		default:
			want[n] = true
		}
	}
	var b []byte
	n := 0
	for _, s := range infoSections {
		if !(want[s.name] || everything || all || (dflt && s.dflt)) {
			continue
		}
		if n > 0 {
			b = append(b, '\r', '\n')
		}
		n++
		b = append(b, "# "...)
		b = append(b, s.title...)
		b = append(b, '\r', '\n')
		if s.section != nil {
			b = s.section(e, b, now)
		}
	}
	return string(b)
}

func info(c *Ctx, args [][]byte) {
	names := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		names = append(names, strings.ToLower(string(a)))
	}
	c.W.Verbatim(c.E.Info(c.Now, names...), "txt")
}

// countError records an error reply for INFO (total_error_replies and
// errorstats), as Redis's afterErrorReply: reply is the text after '-'.
// The code is the text before the first space, looked for within the
// first 31 bytes (Redis searches 32 bytes of "-CODE ..."); without one
// it is ERR.
func (e *Engine) countError(reply []byte) {
	e.Stats.TotalErrorReplies++
	n := len(reply)
	for i, ch := range reply {
		if ch == '\r' {
			n = i
			break
		}
	}
	code := []byte("ERR")
	for i := 0; i < n && i < 31; i++ {
		if reply[i] == ' ' {
			code = reply[:i]
			break
		}
	}
	if e.srv.errorStats == nil {
		e.srv.errorStats = map[string]int64{}
	}
	if _, ok := e.srv.errorStats[string(code)]; !ok && len(e.srv.errorStats) >= 128 {
		return // Redis stops tracking new error codes past 128
	}
	e.srv.errorStats[string(code)]++
}

// CountErrorReply counts an error reply written outside the engine (a
// protocol error) in INFO errorstats and total_error_replies, as Redis
// counts every addReplyError. msg is the reply without '-'.
func (e *Engine) CountErrorReply(msg string) { e.countError([]byte(msg)) }

func infoErrorStats(e *Engine, b []byte, now int64) []byte {
	codes := make([]string, 0, len(e.srv.errorStats))
	for k := range e.srv.errorStats {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	for _, k := range codes {
		b = append(b, "errorstat_"...)
		b = append(b, k...)
		b = append(b, ":count="...)
		b = strconv.AppendInt(b, e.srv.errorStats[k], 10)
		b = append(b, '\r', '\n')
	}
	return b
}

// cmdStat is one command's INFO commandstats counters; ns is the time
// the calls took (Redis's microseconds, kept in nanoseconds).
type cmdStat struct {
	calls, rejected, failed, ns int64
	hist                        *hdrhist.Histogram // latency tracking (slowlog.go)
}

// monoBase anchors monoNanos.
var monoBase = time.Now()

// monoNanos is a monotonic clock reading in nanoseconds, never 0: one
// vDSO clock read (time.Since of a monotonic time reads only the
// monotonic clock).
func monoNanos() int64 { return int64(time.Since(monoBase)) + 1 }

// Command statistics follow Redis 7.0's call() and
// incrCommandStatsOnError. Every command that runs counts a call, whether
// a client sent it, EXEC runs it from its queue or a script through
// redis.call. It failed when error replies were counted (countError)
// since the last command was accounted for: a command's own error reply,
// or errors written to other clients while it ran (CLIENT UNBLOCK ...
// ERROR), but not those of the commands it ran itself (EXEC's queue, a
// script's redis.call), which are theirs. A command refused before it ran
// counts a rejected call. Errors Redis counts where they arose and does
// not count again when they are passed on (a script returning the error
// of redis.call) make the passing command fail directly (failedCall).
//
// errPrev is Redis's prev_err_count: callStart sets it when a command
// starts, so errors written between commands (a blocked client served
// after a command) count against no command.

// callStart marks the start of a command for countCall.
func (e *Engine) callStart() { e.srv.errPrev = e.Stats.TotalErrorReplies }

// countCall records a command: run (ran), taking ns, or refused. A
// command queued by MULTI is neither.
func (e *Engine) countCall(s *Spec, ran bool, ns int64) {
	errs := e.Stats.TotalErrorReplies > e.srv.errPrev
	e.srv.errPrev = e.Stats.TotalErrorReplies
	if s == nil || (!ran && !errs) {
		return
	}
	st := e.cmdStat(s)
	if !ran {
		st.rejected++
		return
	}
	st.calls++
	st.ns += ns
	if e.Config.LatencyTracking {
		st.recordLatency(ns)
	}
	if errs {
		st.failed++
	}
}

// failedCall counts a failed call of s whose error was counted elsewhere.
func (e *Engine) failedCall(s *Spec) {
	if s != nil {
		e.cmdStat(s).failed++
	}
}

func (e *Engine) cmdStat(s *Spec) *cmdStat {
	if s.idx >= len(e.srv.cmdStats) {
		e.srv.cmdStats = append(e.srv.cmdStats, make([]cmdStat, specCount-len(e.srv.cmdStats))...)
	}
	return &e.srv.cmdStats[s.idx]
}

// cmdStatIf is s's counters, or nil if none was made.
func (e *Engine) cmdStatIf(s *Spec) *cmdStat {
	if s.idx < len(e.srv.cmdStats) {
		return &e.srv.cmdStats[s.idx]
	}
	return nil
}

func infoCommandStats(e *Engine, b []byte, now int64) []byte {
	var walk func(specs []*Spec)
	walk = func(specs []*Spec) {
		for _, s := range specs {
			if st := e.cmdStatIf(s); st != nil {
				if st.calls > 0 || st.rejected > 0 || st.failed > 0 {
					b = append(b, "cmdstat_"...)
					b = append(b, s.FullName()...)
					b = append(b, ":calls="...)
					b = strconv.AppendInt(b, st.calls, 10)
					// usec_per_call is C's (float)usec/calls, printed "%.2f".
					usec := st.ns / 1000
					b = append(b, ",usec="...)
					b = strconv.AppendInt(b, usec, 10)
					b = append(b, ",usec_per_call="...)
					perCall := float32(0)
					if st.calls > 0 {
						perCall = float32(usec) / float32(st.calls)
					}
					b = strconv.AppendFloat(b, float64(perCall), 'f', 2, 64)
					b = append(b, ",rejected_calls="...)
					b = strconv.AppendInt(b, st.rejected, 10)
					b = append(b, ",failed_calls="...)
					b = strconv.AppendInt(b, st.failed, 10)
					b = append(b, '\r', '\n')
				}
			}
			walk(s.Sub)
		}
	}
	walk(All())
	return b
}
