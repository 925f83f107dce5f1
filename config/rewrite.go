package config

import (
	"os"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisconf"
)

// Config files: loading a directive (LoadDirective) and CONFIG REWRITE's
// lines (RewriteLines), from the settings table, so a file and CONFIG SET
// accept exactly the same values and CONFIG REWRITE writes what CONFIG GET
// reports, in Redis 7.0.15's formats (src/config.c, checked against
// redis-server: conformance/config_file_test.go).

// multiArg are the settings a config file line gives several arguments
// (Redis's MULTI_ARG_CONFIG): they are joined with spaces.
var multiArg = map[string]bool{
	"save": true, "client-output-buffer-limit": true, "oom-score-adj-values": true,
	"bind": true, "latency-tracking-info-percentiles": true,
	"shutdown-on-sigint": true, "shutdown-on-sigterm": true,
}

// emptyIsNull are the string settings Redis keeps as NULL when empty
// (EMPTY_STRING_IS_NULL): CONFIG REWRITE then writes no line for them.
var emptyIsNull = map[string]bool{
	"unixsocket": true, "pidfile": true, "replica-announce-ip": true, "masteruser": true,
	"masterauth": true, "cluster-announce-ip": true, "cluster-announce-hostname": true,
	"server_cpulist": true, "bio_cpulist": true, "aof_rewrite_cpulist": true, "bgsave_cpulist": true,
	"bind-source-addr": true, "tls-cert-file": true, "tls-key-file": true, "tls-key-file-pass": true,
	"tls-client-cert-file": true, "tls-client-key-file": true, "tls-client-key-file-pass": true,
	"tls-dh-params-file": true, "tls-ca-cert-file": true, "tls-ca-cert-dir": true,
	"tls-protocols": true, "tls-ciphers": true, "tls-ciphersuites": true,
	"requirepass": true,
}

// listenerSettings describe the listeners, which lockkv takes from its
// flags (--addr, --tls-*): CONFIG REWRITE rewrites them where the file has
// them and appends none.
var listenerSettings = map[string]bool{
	"port": true, "bind": true, "tls-port": true, "tls-cert-file": true,
	"tls-key-file": true, "tls-ca-cert-file": true, "tls-auth-clients": true,
}

// SettingName is the canonical name of the CONFIG setting name (an alias
// included), and whether there is one.
func SettingName(name string) (string, bool) {
	s := lookupSetting(name)
	if s == nil {
		return "", false
	}
	return s.name, true
}

// LoadDirective sets a setting from a config file line (args: the
// directive's arguments after its name), as Redis's
// loadServerConfigFromString does: one argument unless the setting takes
// several, validated as CONFIG SET validates it. Immutable and protected
// settings may be set; values lockkv does not support are refused as
// CONFIG SET refuses them. It returns Redis's error text, or "".
func (c *Config) LoadDirective(name string, args []string) string {
	s, old, msg := c.setDirective(name, args)
	if msg != "" {
		return msg
	}
	if msg := s.refusal(c, old, s.get(c)); msg != "" {
		s.set(c, old)
		return msg
	}
	if c.Maxmemory != 0 && c.MaxmemoryPolicy != "noeviction" {
		s.set(c, old)
		return ErrEvictionPolicy
	}
	return ""
}

// CheckDirective validates a config file line for a setting the caller
// applies itself (cmd/lockkv's port and bind): Redis's error text, or "".
// It sets the value in c, which should be a scratch Config.
func (c *Config) CheckDirective(name string, args []string) string {
	_, _, msg := c.setDirective(name, args)
	return msg
}

func (c *Config) setDirective(name string, args []string) (s *setting, old, msg string) {
	s = lookupSetting(name)
	if s == nil {
		return nil, "", "Bad directive or wrong number of arguments"
	}
	if !multiArg[s.name] && len(args) != 1 {
		return nil, "", "wrong number of arguments"
	}
	old = s.get(c)
	return s, old, s.set(c, strings.Join(args, " "))
}

// RewriteLines are CONFIG REWRITE's lines for every setting, in the
// settings table's order (Redis appends in its hash table's order), each
// forced when its value is not Redis's default.
func (c *Config) RewriteLines() []redisconf.Line {
	def := NewConfig()
	var out []redisconf.Line
	add := func(name, text string, force bool) {
		out = append(out, redisconf.Line{Option: name, Text: text, Force: force})
	}
	for _, s := range settings {
		name := s.name
		v, dv := s.get(c), s.get(def)
		force := v != dv
		if listenerSettings[name] {
			force = false
		}
		switch name {
		case "dir":
			if wd, err := os.Getwd(); err == nil {
				v = wd
			}
			add(name, name+" "+repr(v), true)
		case "save":
			if v == "" {
				add(name, `save ""`, true)
				continue
			}
			f := strings.Fields(v)
			for i := 0; i+1 < len(f); i += 2 {
				add(name, "save "+f[i]+" "+f[i+1], true)
			}
			add(name, "", false)
		case "client-output-buffer-limit":
			cur, dflt := strings.Fields(v), strings.Fields(dv)
			for i := 0; i+3 < len(cur) && i+3 < len(dflt); i += 4 {
				class := cur[i]
				if class == "slave" {
					class = "replica"
				}
				hard, _ := strconv.ParseUint(cur[i+1], 10, 64)
				soft, _ := strconv.ParseUint(cur[i+2], 10, 64)
				add(name, name+" "+class+" "+formatMemory(int64(hard))+" "+formatMemory(int64(soft))+" "+cur[i+3],
					strings.Join(cur[i:i+4], " ") != strings.Join(dflt[i:i+4], " "))
			}
		case "notify-keyspace-events":
			add(name, name+" "+repr(v), c.NotifyFlags != 0)
		case "latency-tracking-info-percentiles":
			if v == "" {
				v = `""`
			}
			add(name, name+" "+v, true)
		case "replicaof":
			add(name, "", false) // never a Redis replica
		case "oom-score-adj-values", "shutdown-on-sigint", "shutdown-on-sigterm":
			add(name, name+" "+v, force)
		case "bind":
			if v == "" {
				v = `""`
			}
			add(name, name+" "+v, force)
		default:
			switch s.kind {
			case kindString:
				if v == "" && emptyIsNull[name] {
					add(name, "", false)
					continue
				}
				if emptyIsNull[name] {
					force = !listenerSettings[name]
				}
				add(name, name+" "+repr(v), force)
			case kindNum:
				switch {
				case s.flags&cfgPercent != 0 && strings.HasSuffix(v, "%"):
					add(name, name+" "+v, force)
				case s.flags&cfgMemory != 0:
					n, _ := strconv.ParseUint(v, 10, 64)
					add(name, name+" "+formatMemory(int64(n)), force)
				default:
					add(name, name+" "+v, force)
				}
			default:
				add(name, name+" "+v, force)
			}
		}
	}
	return out
}

// formatMemory is rewriteConfigFormatMemory: gb, mb or kb when bytes is a
// multiple of one.
func formatMemory(bytes int64) string {
	const kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
	switch {
	case bytes != 0 && bytes%gb == 0:
		return strconv.FormatInt(bytes/gb, 10) + "gb"
	case bytes != 0 && bytes%mb == 0:
		return strconv.FormatInt(bytes/mb, 10) + "mb"
	case bytes != 0 && bytes%kb == 0:
		return strconv.FormatInt(bytes/kb, 10) + "kb"
	}
	return strconv.FormatInt(bytes, 10)
}

func repr(s string) string { return string(cstr.AppendRepr(nil, []byte(s))) }
