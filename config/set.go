package config

import (
	"sort"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/internal/glob"
)

// CONFIG GET and CONFIG SET over the settings table: the handlers (in the
// server's CONFIG family) read and change a Config only through these.

// Setting is one setting CONFIG GET answers: its name as matched and its
// value.
type Setting struct{ Name, Value string }

// GetMatching answers CONFIG GET: every setting matching any pattern. A
// name without glob characters is looked up (and answered as typed, as
// Redis does), a pattern is matched against every name and alias but the
// hidden ones; each name once, any case, spelled as first matched.
// Redis answers in its hash table's order; lockkv by name.
func (c *Config) GetMatching(patterns []string) []Setting {
	var out []Setting
	seen := map[string]bool{}
	for _, pat := range patterns {
		if !strings.ContainsAny(pat, "[*?") {
			s := lookupSetting(pat)
			if key := strings.ToLower(pat); s != nil && !seen[key] {
				seen[key] = true
				out = append(out, Setting{pat, s.get(c)})
			}
			continue
		}
		for name, s := range settingIndex {
			if s.flags&cfgHidden == 0 && !seen[name] && glob.Match(pat, name, true) {
				seen[name] = true
				out = append(out, Setting{name, s.get(c)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SetMany applies every name/value pair or none, as Redis 7.0's
// configSetCommand: the first unknown, immutable, protected or repeated
// name (in the order given) fails before anything changes; then each
// value is set in turn, and a bad one restores the ones set before it. A
// name and its alias are two names (the last one set wins). protectedOK
// says whether the client may set protected configs
// (ProtectedActionAllowed). It returns the canonical names of the
// settings set, or the whole error reply text (without the leading '-').
func (c *Config) SetMany(pairs [][2]string, protectedOK bool) (names []string, errText string) {
	type change struct {
		s     *setting
		name  string // the name or alias given, lower case
		value string
	}
	fail := func(arg, msg string) string {
		return "ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + msg
	}
	var changes []change
	for _, p := range pairs {
		arg := p[0]
		s := lookupSetting(arg)
		switch {
		case s == nil:
			return nil, "ERR Unknown option or number of arguments for CONFIG SET - '" + arg + "'"
		case s.flags&cfgImmutable != 0:
			return nil, fail(arg, "can't set immutable config")
		case s.flags&cfgProtected != 0 && !protectedOK:
			return nil, fail(arg, "can't set protected config")
		}
		ch := change{s, strings.ToLower(arg), p[1]}
		for _, prev := range changes {
			if prev.name == ch.name {
				return nil, fail(arg, "duplicate parameter")
			}
		}
		changes = append(changes, ch)
	}
	old := make([]string, len(changes))
	for i, ch := range changes {
		old[i] = ch.s.get(c)
	}
	for i, ch := range changes {
		if msg := ch.s.set(c, ch.value); msg != "" {
			for j := i - 1; j >= 0; j-- {
				changes[j].s.set(c, old[j])
			}
			return nil, fail(ch.name, msg)
		}
	}
	// Values lockkv does not support fail as Redis's apply stage fails:
	// after every value was validated, restoring them all.
	for i, ch := range changes {
		if msg := ch.s.refusal(c, old[i], ch.s.get(c)); msg != "" {
			for j := len(changes) - 1; j >= 0; j-- {
				changes[j].s.set(c, old[j])
			}
			return nil, fail(ch.s.name, msg) // the canonical name, as Redis's apply stage
		}
	}
	if c.Maxmemory != 0 && c.MaxmemoryPolicy != "noeviction" {
		// lockkv never evicts (see the engine's evict.go): a limit goes
		// with noeviction.
		for j := len(changes) - 1; j >= 0; j-- {
			changes[j].s.set(c, old[j])
		}
		for _, ch := range changes {
			if ch.s.name == "maxmemory" || ch.s.name == "maxmemory-policy" {
				return nil, fail(ch.name, ErrEvictionPolicy)
			}
		}
	}
	names = make([]string, len(changes))
	for i, ch := range changes {
		names[i] = ch.s.name
	}
	return names, ""
}

// Int and String read a setting as CONFIG GET reports it (for INFO): 0 or
// "" for an unknown name.
func (c *Config) Int(name string) int64 {
	v, _ := c.Get(name)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

func (c *Config) String(name string) string {
	v, _ := c.Get(name)
	return v
}
