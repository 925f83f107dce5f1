package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/luaengine"
	"github.com/lockkv/lockkv/store"
)

// SAVE and BGSAVE write the node's keyspace and function libraries as a
// Redis 7.0 RDB file (version 10) at dir/dbfilename, as redis-server
// does: to a temporary file in dir, synced, then renamed over the old
// one. redis-server 7.0 loads it.
//
// What the file holds is this node's applied state when the command ran
// on the command goroutine: on a cluster node, every entry up to the one
// named by the lockkv-raft-applied-index auxiliary field (redis-server
// ignores auxiliary fields it does not know), whichever member it is run
// on. SAVE and BGSAVE are not replicated: each runs where it is sent.
// BGSAVE encodes the file on the command goroutine (as a Raft snapshot is
// encoded: Redis forks instead) and writes it from a goroutine of its own.

var saveCommands = []*Spec{
	{Name: "save", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading | NoMulti, Fn: saveCmd},
	{Name: "bgsave", Arity: -1, Flags: Admin | NoScript | NoAsyncLoading, Fn: bgsaveCmd},
}

func init() { Register(saveCommands) }

// saveState is read by INFO persistence and LASTSAVE on the command
// goroutine and written by a BGSAVE's goroutine too.
type saveState struct {
	lastSave      atomic.Int64 // Unix seconds of the last successful save
	inProgress    atomic.Bool
	failed        atomic.Bool // the last BGSAVE failed
	count         atomic.Int64
	startedAt     atomic.Int64 // Unix seconds the current BGSAVE began
	lastBgsaveSec atomic.Int64
	// savedDirty is, after a BGSAVE succeeded, the changes it saved
	// (Stats.Dirty when it began), for the command goroutine to take off
	// rdb_changes_since_last_save as Redis does; -1 when none is due.
	savedDirty atomic.Int64
	// loaded and expired are what LoadRDB read (rdb_last_load_keys_*).
	loaded, expired int64
}

// settleSaves takes the changes a finished BGSAVE saved off Stats.Dirty
// (on the command goroutine).
func (e *Engine) settleSaves() {
	if d := e.saves.savedDirty.Swap(-1); d > 0 {
		e.Stats.Dirty = max(e.Stats.Dirty-d, 0)
	}
}

func (s *saveState) status() string {
	if s.failed.Load() {
		return "err"
	}
	return "ok"
}

func (s *saveState) currentSec() int64 {
	if !s.inProgress.Load() {
		return -1
	}
	return time.Now().Unix() - s.startedAt.Load()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// RDBPath is where SAVE writes: dir/dbfilename.
func (e *Engine) RDBPath() string {
	dir, _ := e.Config.Get("dir")
	name, _ := e.Config.Get("dbfilename")
	return filepath.Join(dir, name)
}

// EncodeRDB returns the node's databases and function libraries as an
// RDB file, on the command goroutine.
func (e *Engine) EncodeRDB(now int64) []byte {
	var buf bytes.Buffer
	w := rdb.NewFileWriter(&buf)
	w.Aux("redis-ver", "7.0.15")
	w.Aux("redis-bits", "64")
	w.Aux("ctime", strconv.FormatInt(now/1000, 10))
	w.Aux("used-mem", strconv.FormatInt(int64(e.usedMemory()), 10))
	w.Aux("aof-base", "0")
	if e.repl != nil {
		w.Aux("lockkv-raft-applied-index", strconv.FormatUint(e.repl.appliedIndex, 10))
		if e.cluster != nil {
			w.Aux("lockkv-raft-cluster-id", e.cluster.Status().ClusterID)
		}
	}
	for _, lib := range e.scripts().fns().order {
		w.Function([]byte(lib.Code))
	}
	cfg := e.DumpConfig()
	for i, db := range e.DBs {
		live, expires := 0, 0
		db.Range(func(_ string, ent *store.Entry) bool {
			if !ent.Expired(now) {
				live++
				if ent.Expire != 0 {
					expires++
				}
			}
			return true
		})
		if live == 0 {
			continue
		}
		w.SelectDB(i, live, expires)
		db.Range(func(key string, ent *store.Entry) bool {
			if !ent.Expired(now) {
				w.Key(key, ent.Value, ent.Expire, cfg)
			}
			return true
		})
	}
	w.Close() // a bytes.Buffer does not fail
	return buf.Bytes()
}

// writeRDBFile writes data to path as rdbSave does: a temporary file in
// the same directory, synced, renamed.
func writeRDBFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "temp-*.rdb")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func saveCmd(c *Ctx, args [][]byte) {
	if c.E.saves.inProgress.Load() {
		c.Error(ErrBgsaveInProgress)
		return
	}
	c.E.saves.count.Add(1)
	path := c.E.RDBPath()
	if err := writeRDBFile(path, c.E.EncodeRDB(c.Now)); err != nil {
		c.E.logger().Warn("SAVE failed", "path", path, "err", err)
		c.Error("ERR")
		return
	}
	c.E.Stats.Dirty = 0
	c.E.saves.lastSave.Store(c.Now / 1000)
	c.E.logger().Info("DB saved on disk", "path", path)
	c.W.OK()
}

func bgsaveCmd(c *Ctx, args [][]byte) {
	if len(args) > 1 && !(len(args) == 2 && cstr.EqualFold(cstr.CString(args[1]), "schedule")) {
		c.Error(ErrSyntax)
		return
	}
	s := &c.E.saves
	if !s.inProgress.CompareAndSwap(false, true) {
		c.Error(ErrBgsaveInProgress)
		return
	}
	s.count.Add(1)
	s.startedAt.Store(c.Now / 1000)
	dirty := c.E.Stats.Dirty
	data := c.E.EncodeRDB(c.Now)
	path := c.E.RDBPath()
	log := c.E.logger()
	go func() {
		start := time.Now()
		err := writeRDBFile(path, data)
		s.lastBgsaveSec.Store(int64(time.Since(start).Seconds()))
		s.failed.Store(err != nil)
		if err != nil {
			log.Warn("background save failed", "path", path, "err", err)
		} else {
			s.lastSave.Store(time.Now().Unix())
			s.savedDirty.Store(dirty)
			log.Info("background saving terminated with success", "path", path)
		}
		s.inProgress.Store(false)
	}()
	c.W.Status("Background saving started")
}

// LoadRDB adds an RDB file's function libraries and keys (those not
// expired at now) to an engine that does not serve yet, as redis-server
// loads dump.rdb at start; a key or library that exists already, a
// database beyond "databases" or a value that does not decode is an
// error, and the engine is then left as it was. It returns the number of
// keys loaded and skipped as expired.
func (e *Engine) LoadRDB(b []byte, now int64) (loaded, expired int, err error) {
	lim := e.RDBLimits()
	lim.MaxString = math.MaxInt32 // a file is the operator's, not a client's
	dbs := make([]*store.DB, len(e.DBs))
	for i := range dbs {
		dbs[i] = store.NewDB()
	}
	fs := e.scripts().fns()
	scratch := &functionState{lua: fs.lua, libs: map[string]*luaengine.Library{}, funcs: map[string]*luaengine.Function{}}
	err = rdb.ReadFile(b, lim, rdb.FileHandler{
		Function: func(code []byte) error {
			lib, msg := loadLibraryCode(fs, code, luaengine.NoLimit, 0) // the operator's file, as a snapshot
			if msg != "" {
				return errors.New(msg)
			}
			if scratch.libs[lib.Name] != nil || fs.libs[lib.Name] != nil {
				return fmt.Errorf("function library %q loaded twice", lib.Name)
			}
			for _, fn := range lib.Functions {
				if scratch.funcs[strings.ToLower(fn.Name)] != nil || fs.funcs[strings.ToLower(fn.Name)] != nil {
					return fmt.Errorf("function %q loaded twice", fn.Name)
				}
			}
			scratch.add(lib)
			return nil
		},
		Key: func(db int, key []byte, expire int64, v store.Value, _ []byte) error {
			if db < 0 || db >= len(dbs) {
				return fmt.Errorf("database %d, but databases is %d", db, len(dbs))
			}
			if expire != 0 && expire <= now {
				expired++
				return nil
			}
			k := string(key)
			if dbs[db].Peek(k) != nil || e.DBs[db].Peek(k) != nil {
				return fmt.Errorf("duplicate key %q", key)
			}
			dbs[db].Set(k, v, expire, e.newAccess(now))
			loaded++
			return nil
		},
	})
	if err != nil {
		return 0, 0, err
	}
	for _, lib := range scratch.order {
		fs.add(lib)
	}
	for i, db := range dbs {
		db.Range(func(k string, ent *store.Entry) bool {
			e.DBs[i].Set(k, ent.Value, ent.Expire, ent.Access)
			return true
		})
	}
	e.saves.loaded, e.saves.expired = int64(loaded), int64(expired)
	return loaded, expired, nil
}

// DumpConfig is what the written form of a value depends on.
func (e *Engine) DumpConfig() rdb.DumpConfig {
	return rdb.DumpConfig{ListMaxListpackSize: e.Config.ListMaxListpackSize, ListCompressDepth: e.Config.ListCompressDepth}
}

// RDBLimits is how loaded values are encoded and bounded.
func (e *Engine) RDBLimits() rdb.Limits {
	cfg := e.Config
	return rdb.Limits{
		HashMaxListpackEntries: cfg.HashMaxListpackEntries,
		HashMaxListpackValue:   cfg.HashMaxListpackValue,
		SetMaxIntsetEntries:    cfg.SetMaxIntsetEntries,
		ZSetMaxListpackEntries: cfg.ZSetMaxListpackEntries,
		ZSetMaxListpackValue:   cfg.ZSetMaxListpackValue,
		MaxString:              int(min(cfg.ProtoMaxBulkLen, math.MaxInt32)),
	}
}
