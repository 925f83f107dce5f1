package admin

import (
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/buildinfo"
)

// INFO, with Redis 7.0's sections and field names. Fields lockkv has no
// counterpart for (fork, AOF, replication backlog) report what an idle
// Redis without persistence or replicas reports.

var infoCommands = []*engine.Spec{
	{Name: "info", Arity: -1, Flags: engine.Loading | engine.Stale, ACL: []string{"dangerous"}, Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}, NodeLocal: true, Fn: info}, // NodeLocal: this server's statistics, clients, memory, role and settings
}

func init() { engine.Register(infoCommands) }

// info helpers

// infoSections in output order. "default" are those INFO prints without
// arguments; "all" adds commandstats and latencystats.
var infoSections = []struct {
	name    string
	title   string
	dflt    bool
	section func(e *engine.Engine, b []byte, now int64) []byte
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
	{"latencystats", "Latencystats", false, (*engine.Engine).AppendLatencyStats},
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

func infoServer(e *engine.Engine, b []byte, now int64) []byte {
	b = kv(b, "redis_version", buildinfo.RedisVersion)
	b = kv(b, "redis_git_sha1", "00000000")
	b = kv(b, "redis_git_dirty", "0")
	b = kv(b, "redis_build_id", "0")
	b = kv(b, "redis_mode", e.Mode())
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
	b = kvi(b, "io_threads_active", b2i(e.IOThreadsActive))
	// lockkv's own, after Redis's fields (redis_git_sha1 and friends stay
	// what a Redis 7.0.15 from a release tarball says).
	bi := buildinfo.Get()
	b = kv(b, "lockkv_version", bi.Version)
	b = kv(b, "lockkv_git_sha1", bi.ShortRevision())
	b = kv(b, "lockkv_git_dirty", bi.Dirty())
	return b
}

func infoClients(e *engine.Engine, b []byte, now int64) []byte {
	blocked := e.HeldClients()
	tracking, _, _, _ := e.TrackingStats()
	b = kvi(b, "connected_clients", int64(len(e.Clients())))
	b = kvi(b, "cluster_connections", 0)
	b = kvi(b, "maxclients", int64(e.Config.MaxClients))
	b = kvi(b, "client_recent_max_input_buffer", 0)
	b = kvi(b, "client_recent_max_output_buffer", 0)
	b = kvi(b, "blocked_clients", int64(blocked))
	b = kvi(b, "tracking_clients", int64(tracking))
	b = kvi(b, "clients_in_timeout_table", int64(e.ClientsInTimeoutTable()))
	return b
}

func infoMemory(e *engine.Engine, b []byte, now int64) []byte {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// used_memory is what maxmemory is compared with (see engine/evict.go): the
	// live heap as of the last collection.
	used := int64(e.UsedMemoryNow())
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

func infoPersistence(e *engine.Engine, b []byte, now int64) []byte {
	for _, f := range []string{"loading", "async_loading", "current_cow_peak", "current_cow_size", "current_cow_size_age"} {
		b = kvi(b, f, 0)
	}
	b = kv(b, "current_fork_perc", "0.00")
	b = kvi(b, "current_save_keys_processed", 0)
	b = kvi(b, "current_save_keys_total", 0)
	sv := e.Saves()
	b = kvi(b, "rdb_changes_since_last_save", e.Stats.Dirty)
	b = kvi(b, "rdb_bgsave_in_progress", b2i(sv.InProgress))
	b = kvi(b, "rdb_last_save_time", sv.LastSave)
	b = kv(b, "rdb_last_bgsave_status", sv.LastStatus)
	b = kvi(b, "rdb_last_bgsave_time_sec", sv.LastBgsaveSec)
	b = kvi(b, "rdb_current_bgsave_time_sec", sv.CurrentSec)
	b = kvi(b, "rdb_saves", sv.Saves)
	b = kvi(b, "rdb_last_cow_size", 0)
	b = kvi(b, "rdb_last_load_keys_expired", sv.ExpiredSkipped)
	b = kvi(b, "rdb_last_load_keys_loaded", sv.LoadedKeys)
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

func infoStats(e *engine.Engine, b []byte, now int64) []byte {
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
	b = kvi(b, "io_threaded_reads_processed", s.IOThreadedReads)
	b = kvi(b, "io_threaded_writes_processed", s.IOThreadedWrites)
	b = kvi(b, "reply_buffer_shrinks", 0)
	b = kvi(b, "reply_buffer_expands", 0)
	return b
}

func infoReplication(e *engine.Engine, b []byte, now int64) []byte {
	if e.Cluster() != nil {
		return infoReplicationCluster(e, b, now)
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

func infoCPU(e *engine.Engine, b []byte, now int64) []byte {
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

func infoCluster(e *engine.Engine, b []byte, now int64) []byte {
	if e.Cluster() != nil {
		return kvi(b, "cluster_enabled", 1)
	}
	return kvi(b, "cluster_enabled", 0)
}

func infoKeyspace(e *engine.Engine, b []byte, now int64) []byte {
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
func Info(e *engine.Engine, now int64, names ...string) string {
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

func info(c *engine.Ctx, args [][]byte) {
	names := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		names = append(names, strings.ToLower(string(a)))
	}
	c.W.Verbatim(Info(c.E, c.Now, names...), "txt")
}

func infoErrorStats(e *engine.Engine, b []byte, now int64) []byte {
	stats := e.ErrorStats()
	codes := make([]string, 0, len(stats))
	for k := range stats {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	for _, k := range codes {
		b = append(b, "errorstat_"...)
		b = append(b, k...)
		b = append(b, ":count="...)
		b = strconv.AppendInt(b, stats[k], 10)
		b = append(b, '\r', '\n')
	}
	return b
}

func infoCommandStats(e *engine.Engine, b []byte, now int64) []byte {
	for _, st := range e.CommandStats(nil) {
		b = append(b, "cmdstat_"...)
		b = append(b, st.Name...)
		b = append(b, ":calls="...)
		b = strconv.AppendInt(b, st.Calls, 10)
		// usec_per_call is C's (float)usec/calls, printed "%.2f".
		usec := st.Nanos / 1000
		b = append(b, ",usec="...)
		b = strconv.AppendInt(b, usec, 10)
		b = append(b, ",usec_per_call="...)
		perCall := float32(0)
		if st.Calls > 0 {
			perCall = float32(usec) / float32(st.Calls)
		}
		b = strconv.AppendFloat(b, float64(perCall), 'f', 2, 64)
		b = append(b, ",rejected_calls="...)
		b = strconv.AppendInt(b, st.Rejected, 10)
		b = append(b, ",failed_calls="...)
		b = strconv.AppendInt(b, st.Failed, 10)
		b = append(b, '\r', '\n')
	}
	return b
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
