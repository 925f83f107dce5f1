package rdb

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/lockkv/lockkv/store"
)

// RDB files (rdb.c's rdbSaveRio and rdbLoadRio): "REDIS0010", auxiliary
// fields, the function libraries, then per non-empty database SELECTDB,
// RESIZEDB and its keys (each with its deadline), EOF and a CRC64 of
// everything before it.

// RDB opcodes.
const (
	opFunctionPreGA = 246
	opFunction2     = 245
	opModuleAux     = 247
	opIdle          = 248
	opFreq          = 249
	opAux           = 250
	opResizeDB      = 251
	opExpireTimeMs  = 252
	opExpireTime    = 253
	opSelectDB      = 254
	opEOF           = 255
)

// FileWriter writes an RDB file.
type FileWriter struct {
	w   *bufio.Writer
	crc uint64
	buf []byte
	err error
}

// NewFileWriter starts an RDB file on w.
func NewFileWriter(w io.Writer) *FileWriter {
	f := &FileWriter{w: bufio.NewWriterSize(w, 64<<10)}
	f.write([]byte(fmt.Sprintf("REDIS%04d", Version)))
	return f
}

func (f *FileWriter) write(b []byte) {
	if f.err != nil {
		return
	}
	f.crc = CRC64(f.crc, b)
	_, f.err = f.w.Write(b)
}

// Aux writes an auxiliary field (rdbSaveAuxField); integers given as
// their text are stored integer-encoded, as rdbSaveAuxFieldStrInt does.
func (f *FileWriter) Aux(key, val string) {
	b := append(f.buf[:0], opAux)
	b = AppendString(b, []byte(key))
	b = AppendString(b, []byte(val))
	f.buf = b
	f.write(b)
}

// Function writes a function library's code (RDB_OPCODE_FUNCTION2).
func (f *FileWriter) Function(code []byte) {
	b := append(f.buf[:0], opFunction2)
	b = AppendString(b, code)
	f.buf = b
	f.write(b)
}

// SelectDB starts database db, which has size keys, expires of them with
// a deadline.
func (f *FileWriter) SelectDB(db, size, expires int) {
	b := AppendLen(append(f.buf[:0], opSelectDB), db)
	b = AppendLen(append(b, opResizeDB), size)
	b = AppendLen(b, expires)
	f.buf = b
	f.write(b)
}

// Key writes one key (rdbSaveKeyValuePair): its deadline in Unix ms (0
// for none), then the value.
func (f *FileWriter) Key(key string, v store.Value, expireMs int64, cfg DumpConfig) {
	b := f.buf[:0]
	if expireMs != 0 {
		b = binary.LittleEndian.AppendUint64(append(b, opExpireTimeMs), uint64(expireMs))
	}
	t := len(b)
	b = AppendValue(b, v, cfg) // type byte, then the value
	// The key goes between the type and the value.
	typ := b[t]
	val := append([]byte(nil), b[t+1:]...)
	b = append(b[:t], typ)
	b = AppendString(b, []byte(key))
	b = append(b, val...)
	f.buf = b
	f.write(b)
}

// Close writes EOF and the checksum and flushes.
func (f *FileWriter) Close() error {
	f.write([]byte{opEOF})
	if f.err != nil {
		return f.err
	}
	var sum [8]byte
	binary.LittleEndian.PutUint64(sum[:], f.crc)
	if _, err := f.w.Write(sum[:]); err != nil {
		return err
	}
	return f.w.Flush()
}

// FileHandler receives what ReadFile reads. Any callback may be nil.
type FileHandler struct {
	Aux func(key, val []byte)
	// Function gets a library's code.
	Function func(code []byte) error
	// Key gets a key of database db, its deadline (Unix ms, 0 for none),
	// its value and the value's RDB encoding with its type byte (a DUMP
	// payload without the footer). The slices are valid during the call.
	Key func(db int, key []byte, expireMs int64, v store.Value, raw []byte) error
}

// FileError is a file that does not read, with the offset where it
// stopped.
type FileError struct {
	Offset int
	Msg    string
}

func (e *FileError) Error() string { return fmt.Sprintf("rdb: %s at offset %d", e.Msg, e.Offset) }

// ReadFile reads a whole RDB file of version 1 to 10 (the file is in
// memory: b), checking its checksum, and calls h for its contents.
func ReadFile(b []byte, lim Limits, h FileHandler) error {
	fail := func(d *decoder, msg string) error { return &FileError{Offset: len(b) - len(d.b), Msg: msg} }
	if len(b) < 9 || string(b[:5]) != "REDIS" {
		return &FileError{Msg: "not an RDB file (no REDIS signature)"}
	}
	ver, err := strconv.Atoi(string(b[5:9]))
	if err != nil || ver < 1 || ver > Version {
		return &FileError{Offset: 5, Msg: fmt.Sprintf("can't handle RDB format version %q", b[5:9])}
	}
	d := &decoder{b: b[9:], lim: lim}
	db := 0
	var expire int64
	for {
		if len(d.b) == 0 {
			return fail(d, "unexpected end of file")
		}
		op := d.b[0]
		d.b = d.b[1:]
		switch op {
		case opEOF:
			if ver >= 5 {
				if len(d.b) < 8 {
					return fail(d, "unexpected end of file in the checksum")
				}
				sum := binary.LittleEndian.Uint64(d.b)
				if sum != 0 && sum != CRC64(0, b[:len(b)-len(d.b)]) {
					return fail(d, "wrong RDB checksum")
				}
			}
			return nil
		case opAux:
			k, err := d.string()
			if err != nil {
				return fail(d, "bad AUX field")
			}
			k = append([]byte(nil), k...)
			v, err := d.string()
			if err != nil {
				return fail(d, "bad AUX field")
			}
			if h.Aux != nil {
				h.Aux(k, v)
			}
		case opResizeDB:
			if _, err := d.len(); err != nil {
				return fail(d, "bad RESIZEDB")
			}
			if _, err := d.len(); err != nil {
				return fail(d, "bad RESIZEDB")
			}
		case opSelectDB:
			n, err := d.len()
			if err != nil {
				return fail(d, "bad SELECTDB")
			}
			db = n
		case opExpireTimeMs:
			if len(d.b) < 8 {
				return fail(d, "unexpected end of file")
			}
			expire = int64(binary.LittleEndian.Uint64(d.b))
			d.b = d.b[8:]
		case opExpireTime:
			if len(d.b) < 4 {
				return fail(d, "unexpected end of file")
			}
			expire = int64(int32(binary.LittleEndian.Uint32(d.b))) * 1000
			d.b = d.b[4:]
		case opIdle:
			if _, err := d.len(); err != nil {
				return fail(d, "bad IDLE")
			}
		case opFreq:
			if len(d.b) < 1 {
				return fail(d, "unexpected end of file")
			}
			d.b = d.b[1:]
		case opFunction2:
			code, err := d.string()
			if err != nil {
				return fail(d, "bad function library")
			}
			if h.Function != nil {
				if err := h.Function(code); err != nil {
					return fail(d, err.Error())
				}
			}
		case opFunctionPreGA, opModuleAux:
			return fail(d, fmt.Sprintf("unsupported opcode %d (module data or a pre-release function library)", op))
		default:
			key, err := d.string()
			if err != nil {
				return fail(d, "bad key")
			}
			key = append([]byte(nil), key...)
			start := d.b
			d.budget = lim.MaxString
			v, err := d.value(op)
			if err != nil {
				return fail(d, fmt.Sprintf("bad value of RDB type %d for key %q", op, key))
			}
			raw := make([]byte, 0, 1+len(start)-len(d.b))
			raw = append(append(raw, op), start[:len(start)-len(d.b)]...)
			if h.Key != nil {
				if err := h.Key(db, key, expire, v, raw); err != nil {
					return fail(d, err.Error())
				}
			}
			expire = 0
		}
	}
}
