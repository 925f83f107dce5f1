package engine

import "testing"

func TestKeySlot(t *testing.T) {
	for key, want := range map[string]int{
		"foo":           12182, // redis-cli CLUSTER KEYSLOT foo
		"bar":           5061,
		"{user1000}.a":  3443,
		"{user1000}.b":  3443,
		"user1000":      3443,
		"foo{}{bar}":    8363, // an empty tag: the whole key
		"foo{{bar}}zap": 4015, // the tag is "{bar"
		"foo{bar}{zap}": 5061, // the first tag only
		"":              0,
		"{":             KeySlot([]byte("{")),
	} {
		if got := KeySlot([]byte(key)); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", key, got, want)
		}
	}
	if crc16([]byte("123456789")) != 0x31C3 {
		t.Errorf("crc16 check value = %#x", crc16([]byte("123456789")))
	}
}
