package main

import (
	"errors"
	"flag"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/redisconf"
)

// A config file in redis.conf's syntax (internal/redisconf). Each line is
// one of:
//
//   - a lockkv flag by its name ("node-id n1", "bootstrap yes"),
//   - a Redis setting lockkv has a flag for, by Redis's name: requirepass,
//     databases, maxclients, loglevel, logfile, protected-mode,
//     enable-debug-command, enable-protected-configs, port and bind (the
//     host and port of --addr), tls-port (of --tls-addr) and the tls-*
//     files,
//   - dir, which changes the working directory as in Redis (relative
//     paths after it, --data-dir's included, start there),
//   - any other CONFIG setting (maxmemory, timeout, hz, ...), validated as
//     CONFIG SET validates it and applied as the server starts,
//   - include (internal/redisconf).
//
// A flag given on the command line overrides the file's lines for it.

// notDirectives are flags a config file cannot give.
var notDirectives = map[string]bool{"version": true, "v": true}

// redisFlags are Redis settings with a flag of the same name: a line
// is validated as the setting (Redis's error texts), then sets the flag.
var redisFlags = map[string]bool{
	"requirepass": true, "databases": true, "maxclients": true, "protected-mode": true,
	"enable-debug-command": true, "enable-protected-configs": true, "logfile": true,
	"tls-cert-file": true, "tls-key-file": true, "tls-ca-cert-file": true, "tls-auth-clients": true,
}

// configDirectives are the file's directives that are no CONFIG setting
// (lockkv's flags), for CONFIG REWRITE: kept as they are, but log-level is
// rewritten as loglevel.
func configDirectives(fs *flag.FlagSet) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if !notDirectives[f.Name] {
			if _, ok := config.SettingName(f.Name); !ok {
				m[f.Name] = ""
			}
		}
	})
	m["log-level"] = "loglevel"
	return m
}

// loadConfigFile applies the config file at path: flags not given on the
// command line take its values; the CONFIG settings it gives are returned
// to be applied as the server starts.
func loadConfigFile(path string, fs *flag.FlagSet, o *options) ([]lockkv.Setting, error) {
	ds, err := redisconf.Read(path)
	if err != nil {
		return nil, err
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	scratch := config.NewConfig() // validates settings as CONFIG SET would
	scratch.LogLevel = new(slog.LevelVar)
	var settings []lockkv.Setting

	// --addr and --tls-addr from addr/port/bind and tls-addr/tls-port.
	host, port, _ := net.SplitHostPort(o.addr)
	tlsPort, listenTouched, tlsTouched := "", false, false
	if _, p, err := net.SplitHostPort(o.tlsAddr); err == nil {
		tlsPort = p
	}

	for _, d := range ds {
		name, args := d.Args[0], d.Args[1:]
		one := func() (string, *redisconf.Error) {
			if len(args) != 1 {
				return "", d.Errorf("wrong number of arguments")
			}
			return args[0], nil
		}
		switch {
		case notDirectives[name]:
			return nil, d.Errorf("Bad directive or wrong number of arguments")

		case name == "port" || name == "bind" || name == "addr":
			if onCommandLine["addr"] {
				continue
			}
			if name == "addr" {
				v, e := one()
				if e != nil {
					return nil, e
				}
				if v == "" {
					host, port = "", "0"
				} else if host, port, err = net.SplitHostPort(v); err != nil {
					return nil, d.Errorf("%v", err)
				}
				listenTouched = true
				continue
			}
			if msg := scratch.CheckDirective(name, args); msg != "" {
				return nil, d.Errorf("%s", msg)
			}
			if name == "port" {
				port = args[0]
			} else if host, err = bindHost(args); err != nil {
				return nil, d.Errorf("%v", err)
			}
			listenTouched = true

		case name == "tls-port" || name == "tls-addr":
			if onCommandLine["tls-addr"] {
				continue
			}
			v, e := one()
			if e != nil {
				return nil, e
			}
			if name == "tls-addr" {
				if err := fs.Set("tls-addr", v); err != nil {
					return nil, d.Errorf("%v", err)
				}
				tlsTouched = false
				continue
			}
			if msg := scratch.CheckDirective(name, args); msg != "" {
				return nil, d.Errorf("%s", msg)
			}
			tlsPort, tlsTouched = v, true

		case name == "loglevel" || name == "log-level":
			if onCommandLine["log-level"] {
				continue
			}
			v, e := one()
			if e != nil {
				return nil, e
			}
			if name == "loglevel" {
				if msg := scratch.LoadDirective(name, args); msg != "" {
					return nil, d.Errorf("%s", msg)
				}
			} else if _, err := parseLogLevel(v); err != nil {
				return nil, d.Errorf("%v", err)
			}
			fs.Set("log-level", v)

		case name == "dir":
			v, e := one()
			if e != nil {
				return nil, e
			}
			if err := os.Chdir(v); err != nil {
				return nil, d.Errorf("%s", redisconf.Strerror(err))
			}

		case fs.Lookup(name) != nil:
			if onCommandLine[name] {
				continue
			}
			v, e := one()
			if e != nil {
				return nil, e
			}
			if redisFlags[name] {
				if msg := scratch.CheckDirective(name, args); msg != "" {
					return nil, d.Errorf("%s", msg)
				}
			}
			if isBoolFlag(fs.Lookup(name)) {
				switch strings.ToLower(v) {
				case "yes":
					v = "true"
				case "no":
					v = "false"
				}
			}
			if err := fs.Set(name, v); err != nil {
				return nil, d.Errorf("%v", err)
			}

		default:
			if _, ok := config.SettingName(name); !ok {
				return nil, d.Errorf("Bad directive or wrong number of arguments")
			}
			if msg := scratch.LoadDirective(name, args); msg != "" {
				return nil, d.Errorf("%s", msg)
			}
			settings = append(settings, lockkv.Setting{Name: name, Args: args})
		}
	}
	if listenTouched {
		if port == "0" {
			o.addr = "" // Redis's port 0: no plain TCP listener
		} else {
			o.addr = net.JoinHostPort(host, port)
		}
	}
	if tlsTouched {
		if tlsPort == "0" {
			o.tlsAddr = ""
		} else {
			o.tlsAddr = net.JoinHostPort(host, tlsPort)
		}
	}
	return settings, nil
}

// bindHost is the host of --addr for Redis's bind: one address (its "-",
// which makes it optional, dropped), "*" for every IPv4 address, or
// "* -::*" for every address. lockkv listens on one address.
func bindHost(args []string) (string, error) {
	switch strings.Join(args, " ") {
	case "*":
		return "0.0.0.0", nil
	case "::*", "-::*":
		return "::", nil
	case "* -::*", "* ::*", "-::* *", "::* *":
		return "", nil
	}
	if len(args) != 1 {
		return "", errBind
	}
	return strings.TrimPrefix(args[0], "-"), nil
}

var errBind = errors.New("lockkv listens on one address: bind takes one address, * (every IPv4 address) or * -::* (every address)")

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
