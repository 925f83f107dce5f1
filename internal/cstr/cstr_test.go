package cstr

import "testing"

func TestEqualFold(t *testing.T) {
	for _, tc := range []struct {
		b, s string
		want bool
	}{
		{"get", "get", true}, {"GET", "get", true}, {"gEt", "get", true},
		{"get ", "get", false}, {"ge", "get", false}, {"", "", true}, {"", "x", false},
		// Only ASCII letters fold: '@' is not '`', 0xC1 is not 0xE1.
		{"@", "`", false}, {"[", "{", false}, {"\xc1", "\xe1", false},
		{"get\x00", "get", false}, {"1", "1", true},
	} {
		if got := EqualFold([]byte(tc.b), tc.s); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tc.b, tc.s, got, tc.want)
		}
	}
}

func TestCString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"a\x00b", "a"}, {"\x00", ""}, {"ab\x00\x00", "ab"},
	} {
		if got := string(CString([]byte(tc.in))); got != tc.want {
			t.Errorf("CString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAppendRepr: sdscatrepr's output, as MONITOR prints arguments.
func TestAppendRepr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"set", `"set"`},
		{"a b~", `"a b~"`},
		{"\\\"", `"\\\""`},
		{"\n\r\t\a\b", `"\n\r\t\a\b"`},
		{"\x00\x01\x1f\x7f\x80\xff", `"\x00\x01\x1f\x7f\x80\xff"`},
		{"\v\f", `"\x0b\x0c"`},
	} {
		if got := string(AppendRepr([]byte("> "), []byte(tc.in))); got != "> "+tc.want {
			t.Errorf("AppendRepr(%q) = %s, want > %s", tc.in, got, tc.want)
		}
	}
}
