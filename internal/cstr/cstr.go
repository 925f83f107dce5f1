// Package cstr holds what Redis's C code does to a byte string as a C
// string: case-insensitive comparison of a keyword (strcasecmp), the part
// before the first NUL byte (what %s and strcasecmp see of an argument),
// and sdscatrepr's quoting (MONITOR, CONFIG REWRITE, error texts).
package cstr

// EqualFold reports whether b equals the lower-case ASCII word s, ignoring
// the case of b's ASCII letters, without allocating: strcasecmp(b, s) == 0
// for a keyword s. s must be lower case.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// CString returns b up to its first NUL byte: what C code sees of an
// argument when it treats it as a C string (strcasecmp, strtod, %s).
func CString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// AppendRepr appends s to b quoted as Redis's sdscatrepr does: in double
// quotes, with \\ \" \n \r \t \a \b escaped and other bytes outside
// printable ASCII as \xhh.
func AppendRepr(b []byte, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, ch := range s {
		switch ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch >= 0x20 && ch < 0x7f {
				b = append(b, ch)
			} else {
				b = append(b, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(b, '"')
}
