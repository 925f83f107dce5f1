// Package scriptcache maps script SHA1 digests to compiled scripts. A
// Cache belongs to one engine instance; nothing here is global.
//
// Scripts added by SCRIPT LOAD stay until SCRIPT FLUSH. Scripts that only
// EVAL added are kept in least-recently-used order and the oldest is
// evicted beyond MaxEval of them, as Redis 7.4 bounds its cache, so a
// client that builds a new script per call cannot grow memory forever.
package scriptcache

import (
	"container/list"
	"crypto/sha1"
	"encoding/hex"
	"sort"

	"github.com/lockkv/lockkv/luaengine"
)

// MaxEval is how many EVAL-only scripts the cache keeps (Redis 7.4's
// LRU_LIST_LENGTH).
const MaxEval = 500

// Entry is one cached script.
type Entry struct {
	Body   string
	Script luaengine.Script

	lru *list.Element // nil once SCRIPT LOAD made the script permanent
}

// Cache is the SHA1 -> script map.
type Cache struct {
	m   map[string]*Entry
	lru list.List // of *Entry, oldest first
	max int
}

// New returns an empty cache keeping at most max EVAL-only scripts.
func New(max int) *Cache {
	c := &Cache{m: map[string]*Entry{}, max: max}
	c.lru.Init()
	return c
}

// SHA1Hex returns the lower-case hex SHA1 of body, the script's name.
func SHA1Hex(body []byte) string {
	sum := sha1.Sum(body)
	return hex.EncodeToString(sum[:])
}

// Lower returns sha in lower case without allocating when it already is.
func Lower(sha []byte) string {
	for _, c := range sha {
		if c >= 'A' && c <= 'Z' {
			b := make([]byte, len(sha))
			for i, c := range sha {
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				b[i] = c
			}
			return string(b)
		}
	}
	return string(sha)
}

// Get returns the script for a lower-case sha, or nil.
func (c *Cache) Get(sha string) *Entry { return c.m[sha] }

// GetBytes is Get for a sha held in a request buffer (any case).
func (c *Cache) GetBytes(sha []byte) *Entry {
	if e, ok := c.m[string(sha)]; ok {
		return e
	}
	return c.m[Lower(sha)]
}

// Touch records a use of an EVAL-only script.
func (c *Cache) Touch(e *Entry) {
	if e.lru != nil {
		c.lru.MoveToBack(e.lru)
	}
}

// Add stores e under sha. load is true for SCRIPT LOAD (the script becomes
// permanent); an EVAL-added script may evict the least recently used one.
func (c *Cache) Add(sha string, e *Entry, load bool) {
	if old, ok := c.m[sha]; ok {
		if load && old.lru != nil {
			c.lru.Remove(old.lru)
			old.lru = nil
		}
		return
	}
	c.m[sha] = e
	e.Script.SHA = sha
	if load {
		return
	}
	e.lru = c.lru.PushBack(e)
	for c.max > 0 && c.lru.Len() > c.max {
		old := c.lru.Remove(c.lru.Front()).(*Entry)
		old.lru = nil
		delete(c.m, old.Script.SHA)
	}
}

// MakePermanent turns an EVAL-only script into a loaded one.
func (c *Cache) MakePermanent(e *Entry) {
	if e.lru != nil {
		c.lru.Remove(e.lru)
		e.lru = nil
	}
}

// Flush removes every script.
func (c *Cache) Flush() {
	c.m = map[string]*Entry{}
	c.lru.Init()
}

// Entries returns the scripts SCRIPT LOAD made permanent, by SHA1, and
// the EVAL-only ones from the least to the most recently used, so adding
// them in that order to an empty cache rebuilds this one (snapshots).
func (c *Cache) Entries() (loaded, eval []*Entry) {
	for _, e := range c.m {
		if e.lru == nil {
			loaded = append(loaded, e)
		}
	}
	sort.Slice(loaded, func(i, j int) bool { return loaded[i].Script.SHA < loaded[j].Script.SHA })
	for el := c.lru.Front(); el != nil; el = el.Next() {
		eval = append(eval, el.Value.(*Entry))
	}
	return loaded, eval
}

// Len returns the number of cached scripts.
func (c *Cache) Len() int { return len(c.m) }
