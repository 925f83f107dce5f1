package engine_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/internal/rdb"
)

// restorePayload wraps body in FUNCTION DUMP's trailer.
func restorePayload(body []byte) []byte {
	p := append(append([]byte(nil), body...), rdb.Version, 0)
	return binary.LittleEndian.AppendUint64(p, rdb.CRC64(0, p))
}

// TestFunctionRestoreHostileLengths: lengths a payload cannot back are
// refused before anything of their size is allocated (a negative one
// panicked, a huge LZF one ran out of memory). The texts are Redis's,
// checked by conformance's TestFunctionRestoreMalformed.
func TestFunctionRestoreHostileLengths(t *testing.T) {
	te := enginetest.New(t)
	log := captureLog(te.E)
	cl, conn := te.Client()
	be64 := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
	for _, tc := range []struct {
		body []byte
		want string
	}{
		{append(append([]byte{245, 0x81}, be64(1<<63)...), "abc"...), engine.ErrRestoreLibrary},
		{append(append([]byte{245, 0x81}, be64(1<<40)...), "abc"...), engine.ErrRestoreLibrary},
		{append(append([]byte{245, 0xC3, 2, 0x81}, be64(1<<40)...), 0, 'a'), engine.ErrRestoreLibrary},
		{append(append([]byte{245, 0xC3, 2, 0x81}, be64(1<<63)...), 0, 'a'), engine.ErrRestoreLibrary},
		{append(append([]byte{245, 0xC3, 0x81}, be64(1<<63)...), 5, 0, 'a'), engine.ErrRestoreLibrary},
		{[]byte{245, 0xC3, 2, 0x80, 0x7f, 0xff, 0xff, 0xff, 0, 'a'}, engine.ErrRestoreLibrary},
		{append(append([]byte{246, 0x81}, be64(1<<63)...), "abc"...), engine.ErrRestoreLibraryName},
	} {
		te.Expect(cl, conn, "-"+tc.want+"\r\n", "FUNCTION", "RESTORE", string(restorePayload(tc.body)))
	}
	if log.Len() != 0 {
		t.Fatalf("logged: %s", log)
	}
	// A library compressed to its limit decompresses.
	code := "#!lua name=big\nredis.register_function('big', function() return '" + strings.Repeat("a", 100000) + "' end)"
	te.Do(cl, conn, "FUNCTION", "LOAD", code)
	dump := te.Do(cl, conn, "FUNCTION", "DUMP")
	te.Do(cl, conn, "FUNCTION", "FLUSH")
	payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
	te.Expect(cl, conn, "+OK\r\n", "FUNCTION", "RESTORE", payload)
	te.Expect(cl, conn, "$100000\r\n"+strings.Repeat("a", 100000)+"\r\n", "FCALL", "big", "0")
}
