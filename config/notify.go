package config

// NotifyClass is a keyspace-notification class (notify-keyspace-events).
type NotifyClass int

// Classes, as in Redis's server.h NOTIFY_*.
const (
	NotifyKeyspace NotifyClass = 1 << iota // K
	NotifyKeyevent                         // E
	NotifyGeneric                          // g
	NotifyString                           // $
	NotifyList                             // l
	NotifySet                              // s
	NotifyHash                             // h
	NotifyZSet                             // z
	NotifyExpired                          // x
	NotifyEvicted                          // e
	NotifyStream                           // t
	NotifyKeyMiss                          // m
	NotifyModule                           // d
	NotifyNew                              // n
	NotifyAll      = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash |
		NotifyZSet | NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule // A
)

// ParseNotifyFlags parses a notify-keyspace-events string; ok is false for
// an unknown character.
func ParseNotifyFlags(s string) (NotifyClass, bool) {
	var f NotifyClass
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'A':
			f |= NotifyAll
		case 'g':
			f |= NotifyGeneric
		case '$':
			f |= NotifyString
		case 'l':
			f |= NotifyList
		case 's':
			f |= NotifySet
		case 'h':
			f |= NotifyHash
		case 'z':
			f |= NotifyZSet
		case 'x':
			f |= NotifyExpired
		case 'e':
			f |= NotifyEvicted
		case 'K':
			f |= NotifyKeyspace
		case 'E':
			f |= NotifyKeyevent
		case 't':
			f |= NotifyStream
		case 'm':
			f |= NotifyKeyMiss
		case 'd':
			f |= NotifyModule
		case 'n':
			f |= NotifyNew
		default:
			return 0, false
		}
	}
	return f, true
}

// NotifyFlagsString renders flags as Redis's CONFIG GET does.
func NotifyFlagsString(f NotifyClass) string {
	var b []byte
	if f&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, x := range []struct {
			c NotifyClass
			b byte
		}{{NotifyGeneric, 'g'}, {NotifyString, '$'}, {NotifyList, 'l'}, {NotifySet, 's'},
			{NotifyHash, 'h'}, {NotifyZSet, 'z'}, {NotifyExpired, 'x'}, {NotifyEvicted, 'e'},
			{NotifyStream, 't'}, {NotifyModule, 'd'}, {NotifyNew, 'n'}} {
			if f&x.c != 0 {
				b = append(b, x.b)
			}
		}
	}
	if f&NotifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if f&NotifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if f&NotifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}
