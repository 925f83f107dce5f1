package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	stdcrc64 "hash/crc64"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/lockkv/lockkv/luaengine"
	"github.com/lockkv/lockkv/scriptcache"
	"github.com/lockkv/lockkv/store"
)

// Snapshots of the replicated state, for Raft (FSM.Snapshot / Restore).
//
// A snapshot holds every database's keys with their type, value, encoding
// and deadline, the script cache (SCRIPT LOAD'ed scripts and the EVAL-only
// ones in LRU order), the function libraries in load order, and an opaque
// meta blob. The stream is
//
//	"LOCKKVSN" version:uvarint meta:str
//	ndb:uvarint (index:uvarint nkeys:uvarint entry*nkeys)*ndb
//	nloaded:uvarint body:str*nloaded neval:uvarint body:str*neval
//	nlib:uvarint code:str*nlib
//	evalstate:str functionstate:str
//	0xFF crc64:8 (ECMA, little-endian, of everything before)
//
// with entries as store.Encoder writes them and the interpreters' states
// (math.random's generator, cjson's and collectgarbage's settings) as
// luaengine.AppendState writes them. Version 1 streams, from before the
// states were kept, have none: a node restored from one starts the
// interpreters afresh.
//
// Point in time. Values in the keyspace are mutated in place (HINCRBY
// rewrites a listpack's digits), so a snapshot cannot keep pointers into
// it. Engine.Snapshot encodes on the command goroutine straight into 1 MB
// chunks: cloning every value instead would touch the same memory and
// allocate per key besides. WriteTo then streams the chunks from any
// goroutine and computes the checksum there, off the command goroutine.
// The pause is spent waiting for memory (keys and values are visited in
// table order, scattered over the heap), so keys are encoded in batches
// whose loads overlap (store.Encoder.Entries) and a large database is
// split into shards encoded on several cores while the command goroutine
// waits. BenchmarkSnapshotLockHashes measures it for a million lock
// hashes: about 30 bytes per key.

const (
	snapshotMagic   = "LOCKKVSN"
	snapshotVersion = 2
	snapshotEnd     = 0xFF
)

var crcTable = stdcrc64.MakeTable(stdcrc64.ECMA)

// Snapshot is the encoded state at the time Engine.Snapshot was called.
// It shares nothing with the engine.
type Snapshot struct {
	chunks [][]byte
	size   int64
}

// Size returns the number of bytes WriteTo writes.
func (s *Snapshot) Size() int64 { return s.size + 8 }

// WriteTo streams the snapshot and its checksum to w. It may run on any
// goroutine, while the engine keeps executing commands, and more than once.
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	var n int64
	crc := uint64(0)
	for _, c := range s.chunks {
		crc = stdcrc64.Update(crc, crcTable, c)
		k, err := w.Write(c)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	k, err := w.Write(binary.LittleEndian.AppendUint64(nil, crc))
	return n + int64(k), err
}

// Snapshot captures the replicated state on the command goroutine: every
// database's keys with type, value, encoding and deadline (expired keys
// included, with their deadline), the script cache, the function
// libraries, and meta, an opaque blob the replication layer stores with
// it and Restore returns.
func (e *Engine) Snapshot(meta []byte) *Snapshot {
	w := store.NewEncoder(nil)
	w.Raw([]byte(snapshotMagic))
	w.Uvarint(snapshotVersion)
	w.Bytes(meta)
	e.encodeState(w)
	chunks, size := w.Chunks()
	return &Snapshot{chunks: chunks, size: size}
}

// encodeState writes the databases, scripts and functions. With
// w.Canonical set, keys are in sorted order (Digest); otherwise in table
// order.
func (e *Engine) encodeState(w *store.Encoder) {
	ndb := 0
	for _, db := range e.DBs {
		if db.Len() > 0 {
			ndb++
		}
	}
	w.Uvarint(uint64(ndb))
	var keys []string
	for i, db := range e.DBs {
		if db.Len() == 0 {
			continue
		}
		w.Uvarint(uint64(i))
		w.Uvarint(uint64(db.Len()))
		if !w.Canonical {
			encodeKeys(w, db)
			continue
		}
		keys = keys[:0]
		db.Range(func(key string, _ *store.Entry) bool {
			keys = append(keys, key)
			return true
		})
		sort.Strings(keys)
		for _, k := range keys {
			w.Entry(k, db.Peek(k))
		}
	}
	var loaded, eval []*scriptcache.Entry
	var libs []*luaengine.Library
	if s := e.scripting; s != nil {
		loaded, eval = s.cache.Entries()
		if s.functions != nil {
			libs = s.functions.order
		}
	}
	for _, list := range [][]*scriptcache.Entry{loaded, eval} {
		w.Uvarint(uint64(len(list)))
		for _, ent := range list {
			w.String(ent.Body)
		}
	}
	w.Uvarint(uint64(len(libs)))
	for _, lib := range libs {
		w.String(lib.Code)
	}
	est, fst := e.luaStates()
	w.Bytes(luaengine.AppendState(nil, est))
	w.Bytes(luaengine.AppendState(nil, fst))
	w.Byte(snapshotEnd)
}

// luaStates returns the EVAL and the FUNCTION interpreters' states, a new
// interpreter's for one not made yet (the function interpreter shares
// the EVAL one's math.random generator).
func (e *Engine) luaStates() (eval, fn luaengine.State) {
	eval = luaengine.DefaultState()
	s := e.scripting
	if s == nil {
		return eval, eval
	}
	eval = s.lua.State()
	fn = eval.WithCjsonAndGC(luaengine.DefaultState())
	if s.functions != nil {
		fn = s.functions.lua.State()
	}
	return eval, fn
}

// encodeKeys writes db's entries in table order. A large database is
// split into shards encoded on several cores at once while the command
// goroutine waits: the keyspace is only read, and the pause is spent
// mostly waiting for memory (every key is a few pointers away).
func encodeKeys(w *store.Encoder, db *store.DB) {
	workers := min(runtime.GOMAXPROCS(0), 8)
	if workers == 1 || db.Len() < 1<<15 {
		encodeShard(w, db, 0, 1)
		return
	}
	parts := make([]*store.Encoder, workers)
	var wg sync.WaitGroup
	for i := range parts {
		parts[i] = store.NewEncoder(nil)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			encodeShard(parts[i], db, i, workers)
		}(i)
	}
	wg.Wait()
	for _, p := range parts {
		w.Append(p)
	}
}

// encodeShard writes shard i of n of db's entries, in batches (see
// store.Encoder.Entries).
func encodeShard(w *store.Encoder, db *store.DB, i, n int) {
	const batch = 64
	var (
		keys [batch]string
		ents [batch]*store.Entry
		k    int
	)
	db.RangeShard(i, n, func(key string, en *store.Entry) bool {
		keys[k], ents[k] = key, en
		if k++; k == batch {
			w.Entries(keys[:], ents[:])
			k = 0
		}
		return true
	})
	w.Entries(keys[:k], ents[:k])
}

// Digest returns the hex SHA-256 of a canonical form of the replicated
// state: databases with keys in sorted order, each with its type,
// encoding, deadline and value (elements in the encoding's order, sorted
// where that order is unspecified: hashtable hashes and sets), then the
// scripts and the function libraries. Two engines with the same state have
// the same digest, whatever their hash tables' layouts.
func (e *Engine) Digest() string {
	h := sha256.New()
	w := store.NewEncoder(func(b []byte) { h.Write(b) })
	w.Canonical = true
	w.Uvarint(uint64(len(e.DBs)))
	e.encodeState(w)
	w.Chunks()
	return hex.EncodeToString(h.Sum(nil))
}

// Restore replaces the databases, the script cache and the function
// libraries with the snapshot read from r and returns its meta. It runs on
// the command goroutine. The stream is decoded into new state first; on
// any error (a truncated or corrupt stream, a bad checksum, a database
// this server does not have) the engine is left unchanged.
//
// Nothing refers to the old keyspace afterwards: clients WATCHing keys
// that changed fail their EXEC and tracking clients are told to drop
// their caches, as after FLUSHALL; blocked clients are served from the new
// keys they wait on.
func (e *Engine) Restore(r io.Reader) (meta []byte, err error) {
	st, err := e.decodeSnapshot(r)
	if err != nil {
		return nil, err
	}
	now := e.NowMs()
	for i, db := range st.dbs {
		e.touchAllWatchedKeysInDB(i, e.DBs[i], db, now)
	}
	e.trackingInvalidateOnFlush()
	for i, db := range st.dbs {
		e.DBs[i].Swap(db) // keep the *DB every Ctx and client holds
	}
	s := e.scripts()
	s.cache = st.cache
	s.functions = st.functions
	if st.luaStates == nil {
		// A version 1 stream: the interpreters start afresh.
		st.luaStates = &[2]luaengine.State{luaengine.DefaultState(), luaengine.DefaultState()}
	}
	s.lua.SetState(st.luaStates[0])
	s.fns().lua.SetState(st.luaStates[1])
	if e.blocking.count > 0 {
		for i := range e.DBs {
			e.signalReadyAll(i)
		}
		e.afterCommand()
	}
	return st.meta, nil
}

type restoredState struct {
	meta      []byte
	dbs       []*store.DB
	cache     *scriptcache.Cache
	functions *functionState
	// luaStates are the EVAL and FUNCTION interpreters' states (nil in a
	// version 1 stream).
	luaStates *[2]luaengine.State
}

// ErrSnapshotFormat wraps every error Restore returns for a stream it
// cannot use.
var ErrSnapshotFormat = store.ErrCorruptSnapshot

func snapshotError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", store.ErrCorruptSnapshot, fmt.Sprintf(format, a...))
}

func (e *Engine) decodeSnapshot(r io.Reader) (*restoredState, error) {
	crc := stdcrc64.New(crcTable)
	d := store.NewDecoder(r, crc)
	var magic [len(snapshotMagic)]byte
	if err := d.Full(magic[:]); err != nil {
		return nil, err
	}
	if string(magic[:]) != snapshotMagic {
		return nil, snapshotError("not a lockkv snapshot")
	}
	ver, err := d.Uvarint()
	if err != nil {
		return nil, err
	}
	if ver != snapshotVersion && ver != 1 {
		return nil, snapshotError("unsupported version %d", ver)
	}
	st := &restoredState{}
	if st.meta, err = d.Bytes(); err != nil {
		return nil, err
	}
	st.dbs = make([]*store.DB, len(e.DBs))
	for i := range st.dbs {
		st.dbs[i] = store.NewDB()
	}
	ndb, err := d.Len(uint64(len(e.DBs)))
	if err != nil {
		return nil, err
	}
	now := e.NowMs()
	last := -1
	for range ndb {
		idx, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if idx >= uint64(len(e.DBs)) {
			return nil, snapshotError("database %d, this server has %d", idx, len(e.DBs))
		}
		if int(idx) <= last {
			return nil, snapshotError("database %d out of order", idx)
		}
		last = int(idx)
		db := st.dbs[idx]
		nkeys, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		for k := uint64(0); k < nkeys; k++ {
			key, v, expire, err := d.Entry()
			if err != nil {
				return nil, err
			}
			if db.Peek(key) != nil {
				return nil, snapshotError("duplicate key in database %d", idx)
			}
			db.Set(key, v, expire, e.newAccess(now))
		}
	}
	st.cache = scriptcache.New(scriptcache.MaxEval)
	for _, load := range []bool{true, false} {
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		for range n {
			body, err := d.Bytes()
			if err != nil {
				return nil, err
			}
			proto, flags, err := luaengine.Compile(body)
			if err != nil {
				return nil, snapshotError("script does not compile: %v", err)
			}
			ent := &scriptcache.Entry{Body: string(body)}
			ent.Script.Proto = proto
			ent.Script.Flags = flags
			st.cache.Add(scriptcache.SHA1Hex(body), ent, load)
		}
	}
	nlib, err := d.Uvarint()
	if err != nil {
		return nil, err
	}
	for range nlib {
		code, err := d.Bytes()
		if err != nil {
			return nil, err
		}
		if st.functions == nil {
			st.functions = &functionState{
				lua:   luaengine.NewFunctionEngine(e.scripts().lua),
				libs:  map[string]*luaengine.Library{},
				funcs: map[string]*luaengine.Function{},
			}
		}
		fs := st.functions
		// Loaded once already, under the budget: no budget or clock
		// here, so a slow restore cannot fail it.
		lib, msg := loadLibraryCode(fs, code, luaengine.NoLimit, 0)
		if msg != "" {
			return nil, snapshotError("function library: %s", msg)
		}
		if fs.libs[lib.Name] != nil {
			return nil, snapshotError("duplicate library %s", lib.Name)
		}
		for _, fn := range lib.Functions {
			if fs.funcs[strings.ToLower(fn.Name)] != nil {
				return nil, snapshotError("duplicate function %s", fn.Name)
			}
		}
		fs.add(lib)
	}
	if ver >= 2 {
		var states [2]luaengine.State
		for i := range states {
			b, err := d.Bytes()
			if err != nil {
				return nil, err
			}
			if states[i], err = luaengine.DecodeState(b); err != nil {
				return nil, snapshotError("%v", err)
			}
		}
		st.luaStates = &states
	}
	end, err := d.Byte()
	if err != nil {
		return nil, err
	}
	if end != snapshotEnd {
		return nil, snapshotError("bad end marker")
	}
	sum := d.Sum()
	var trailer [8]byte
	if err := d.Full(trailer[:]); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint64(trailer[:]) != sum {
		return nil, snapshotError("checksum mismatch")
	}
	if eof, err := d.AtEOF(); err != nil {
		return nil, err
	} else if !eof {
		return nil, snapshotError("data after the checksum")
	}
	return st, nil
}
