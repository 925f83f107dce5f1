package longdouble

import "testing"

// Expected replies were taken from redis-server 7.0.15 (HSET t f a;
// HINCRBYFLOAT t f b). "ERR" marks an error reply.
func TestAddLikeRedis(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"0.1", "0.2", "0.3"},
		{"1.1", "2.2", "3.3"},
		{"3.0e3", "1", "3001"},
		{"10.5", "-0.5", "10"},
		{"-1", "0.99999999999999999", "-0.00000000000000001"},
		{"5.0e3", "2.0e2", "5200"},
		{"1.23456789012345678", "0", "1.23456789012345678"},
		{"0x1p-2", "0", "0.25"},
		{"0X1.8P1", "0", "3"},
		{"1e-18", "0", "0"},
		{"0.000001", "0", "0.000001"},
		{"123456789012345678", "1", "123456789012345679"},
		{"-0.1", "0.1", "0"},
		{"1e4932", "1e4932", "ERR increment would produce NaN or Infinity"},
		{"7", "-7", "0"},
		{"1e-4940", "0", "0"},
		{"1.5", "1e-17", "1.50000000000000001"},
		{"2.5", "1e-17", "2.50000000000000001"},
		{"0.5e-16", "0", "0.00000000000000005"},
		{"1.000000000000000005", "0", "1"},
		{"+.5", ".5", "1"},
		{"5.", "1", "6"},
		{"1e", "1", "ERR hash value is not a float"},
		{"1e+", "1", "ERR hash value is not a float"},
		{"0x", "1", "ERR hash value is not a float"},
		{"0x1p", "1", "ERR hash value is not a float"},
		{".", "1", "ERR hash value is not a float"},
		{"inf", "1", "ERR increment would produce NaN or Infinity"},
		{"-INFINITY", "1", "ERR increment would produce NaN or Infinity"},
		{"nan", "1", "ERR hash value is not a float"},
		{"1", "inf", "ERR value is NaN or Infinity"},
		{"abc", "1", "ERR hash value is not a float"},
		{"1e-99999", "1", "ERR hash value is not a float"},
		{"1e99999", "1", "ERR hash value is not a float"},
		{"0e99999", "1", "1"},
		{"-0", "-0", "0"},
		{"1", "0x1.fp-1", "1.96875"},
		{"1.5e300", "-1.5e300", "0"},
		{"9223372036854775807", "1", "9223372036854775808"},
		{"0.30000000000000004", "0", "0.30000000000000004"},
		{"100", "1e-30", "100"},
		{"3", "\x20", "ERR value is not a valid float"},
		{"1_0", "1", "ERR hash value is not a float"},
		{"1,5", "1", "ERR hash value is not a float"},
	}
	for _, c := range cases {
		a, ok := Parse([]byte(c.a))
		var got string
		if !ok {
			got = "ERR"
		} else if b, ok := Parse([]byte(c.b)); !ok || IsInf(b) {
			got = "ERR"
		} else if z, ok := Add(a, b); !ok {
			got = "ERR"
		} else {
			got = string(AppendHuman(nil, z))
		}
		want := c.want
		if len(want) >= 3 && want[:3] == "ERR" {
			want = "ERR"
		}
		if got != want {
			t.Errorf("%q + %q = %q, redis %q", c.a, c.b, got, c.want)
		}
	}
}

// FuzzParse checks that Parse never panics and that what it accepts adds
// and prints without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "1e4932", "1e-4950", "0x1p-16445", "0x1.fffffffffffffffep16383",
		"inf", "-Infinity", "nan", "1e", "0x", ".", "+.5e-3", "123456789012345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, ok := Parse([]byte(s))
		if !ok || IsInf(x) {
			return
		}
		if z, ok := Add(x, FromInt(1)); ok {
			AppendHuman(nil, z)
		}
	})
}
