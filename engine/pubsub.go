package engine

import (
	"sort"
	"strconv"

	"github.com/lockkv/lockkv/internal/glob"
	"github.com/lockkv/lockkv/internal/resp"
)

// Pub/sub: PUBLISH SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SPUBLISH
// SSUBSCRIBE SUNSUBSCRIBE PUBSUB, as Redis 7.0's pubsub.c.
//
// Ordering follows Redis 7.0 where it is defined: a channel's subscribers
// receive a message in subscription order (Redis keeps a list), channel
// subscribers before pattern subscribers, and PUNSUBSCRIBE without
// arguments goes through a client's patterns in subscription order (also a
// list in 7.0). Where Redis iterates a hash table its order is arbitrary,
// and lockkv picks a deterministic one where it can: matching patterns
// deliver in the order they were first subscribed, UNSUBSCRIBE and
// SUNSUBSCRIBE without arguments go through the channels sorted; PUBSUB
// CHANNELS lists in map order.

var pubsubCommands = []*Spec{
	// PUBLISH and SPUBLISH answer how many of this node's clients got
	// the message, yet are not NodeLocal: lock scripts publish and then
	// write (Redisson's unlock publishes, then SETs its unlock latch),
	// and would fail on a cluster. A script that writes the count makes
	// the nodes differ (DESIGN.md, "Scripts in the log").
	{Name: "publish", Arity: 3, Flags: PubSub | Loading | Stale | Fast | MayReplicate, Fn: publishCommand},
	{Name: "subscribe", Arity: -2, Flags: PubSub | NoScript | Loading | Stale, Subscribed: true, Fn: subscribeCommand},
	{Name: "unsubscribe", Arity: -1, Flags: PubSub | NoScript | Loading | Stale, Subscribed: true, Fn: unsubscribeCommand},
	{Name: "psubscribe", Arity: -2, Flags: PubSub | NoScript | Loading | Stale, Subscribed: true, Fn: psubscribeCommand},
	{Name: "punsubscribe", Arity: -1, Flags: PubSub | NoScript | Loading | Stale, Subscribed: true, Fn: punsubscribeCommand},
	{Name: "spublish", Arity: 3, Flags: PubSub | Loading | Stale | Fast | MayReplicate, KeySpecs: []KeySpec{Key1(KeyNotKey)}, Fn: spublishCommand},
	{Name: "ssubscribe", Arity: -2, Flags: PubSub | NoScript | Loading | Stale, Subscribed: true, KeySpecs: []KeySpec{{Flags: KeyNotKey, Pos: 1, LastKey: -1, KeyStep: 1}}, Fn: ssubscribeCommand},
	{Name: "sunsubscribe", Arity: -1, Flags: PubSub | NoScript | Loading | Stale, Subscribed: true, KeySpecs: []KeySpec{{Flags: KeyNotKey, Pos: 1, LastKey: -1, KeyStep: 1}}, Fn: sunsubscribeCommand},
	{Name: "pubsub", Arity: -2, Sub: []*Spec{
		{Name: "channels", Arity: -2, Flags: PubSub | Loading | Stale, NodeLocal: true, Fn: pubsubChannels},           // NodeLocal: this node's subscribers
		{Name: "numpat", Arity: 2, Flags: PubSub | Loading | Stale, NodeLocal: true, Fn: pubsubNumpat},                // NodeLocal: this node's subscribers
		{Name: "numsub", Arity: -2, Flags: PubSub | Loading | Stale, NodeLocal: true, Fn: pubsubNumsub},               // NodeLocal: this node's subscribers
		{Name: "shardchannels", Arity: -2, Flags: PubSub | Loading | Stale, NodeLocal: true, Fn: pubsubShardChannels}, // NodeLocal: this node's subscribers
		{Name: "shardnumsub", Arity: -2, Flags: PubSub | Loading | Stale, NodeLocal: true, Fn: pubsubShardNumsub},     // NodeLocal: this node's subscribers
		{Name: "help", Arity: 2, Flags: Loading | Stale, Fn: pubsubHelp},
	}},
}

func init() { Register(pubsubCommands) }

// pubsub helpers

// subscribers is the ordered list of clients subscribed to one channel or
// pattern. Redis 7.0 keeps a list too, so unsubscribing is linear in the
// number of subscribers of that one channel, as in Redis.
type subscribers []*Client

func (s subscribers) without(c *Client) subscribers {
	for i, x := range s {
		if x == c {
			copy(s[i:], s[i+1:])
			s[len(s)-1] = nil
			return s[:len(s)-1]
		}
	}
	return s
}

// orderedSet is a set of strings that remembers insertion order. Removal
// leaves a hole that is compacted once holes outnumber members.
type orderedSet struct {
	idx   map[string]int
	items []setItem
}

type setItem struct {
	s    string
	dead bool
}

// add inserts s (known to be absent).
func (o *orderedSet) add(s string) {
	if o.idx == nil {
		o.idx = map[string]int{}
	}
	o.idx[s] = len(o.items)
	o.items = append(o.items, setItem{s: s})
}

// remove deletes s if present.
func (o *orderedSet) remove(s string) {
	i, ok := o.idx[s]
	if !ok {
		return
	}
	delete(o.idx, s)
	o.items[i] = setItem{dead: true}
	if len(o.idx) == 0 {
		o.items = o.items[:0]
		return
	}
	if len(o.items) > 16 && len(o.items) > 2*len(o.idx) {
		live := o.items[:0]
		for _, it := range o.items {
			if !it.dead {
				o.idx[it.s] = len(live)
				live = append(live, it)
			}
		}
		for j := len(live); j < len(o.items); j++ {
			o.items[j] = setItem{}
		}
		o.items = live
	}
}

// pubsubState holds the server side of subscriptions.
type pubsubState struct {
	channels map[string]subscribers // SUBSCRIBE
	shard    map[string]subscribers // SSUBSCRIBE
	patterns map[string]subscribers // PSUBSCRIBE
	patOrder orderedSet             // patterns in first-subscription order

	notifyBuf []byte // keyspace notification channel names are built here
}

// subClient is a client's subscriptions.
type subClient struct {
	channels map[string]struct{}
	patterns map[string]struct{}
	shard    map[string]struct{}
	// patOrder lists the patterns in subscription order: Redis 7.0 keeps a
	// client's patterns in a list, so PUNSUBSCRIBE without arguments
	// confirms them in that order.
	patOrder []string
}

// count is the total number of subscriptions; a RESP2 client with any is
// in the subscribed context (Redis's CLIENT_PUBSUB flag).
func (s *subClient) count() int {
	return len(s.channels) + len(s.patterns) + len(s.shard)
}

// SubscriptionCounts returns how many channels, patterns and shard channels
// c is subscribed to (CLIENT LIST sub=, psub=, ssub=).
func (c *Client) SubscriptionCounts() (channels, patterns, shard int) {
	return len(c.sub.channels), len(c.sub.patterns), len(c.sub.shard)
}

// InPubSub reports whether c has any subscription (CLIENT LIST flag 'P').
func (c *Client) InPubSub() bool { return c.sub.count() > 0 }

// PubSubCounts returns the number of channels, patterns and shard channels
// with at least one subscriber (INFO pubsub_channels, pubsub_patterns,
// pubsubshard_channels).
func (e *Engine) PubSubCounts() (channels, patterns, shard int) {
	return len(e.pubsub.channels), len(e.pubsub.patterns), len(e.pubsub.shard)
}

func (e *Engine) initPubSub() {
	e.pubsub.channels = map[string]subscribers{}
	e.pubsub.shard = map[string]subscribers{}
	e.pubsub.patterns = map[string]subscribers{}
}

// appendBulk appends a bulk string holding s (string or bytes).
func appendBulk[S ~string | ~[]byte](w *resp.Writer, s S) {
	w.B = append(w.B, '$')
	w.B = strconv.AppendInt(w.B, int64(len(s)), 10)
	w.B = append(w.B, '\r', '\n')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// publishMessage is Redis's pubsubPublishMessage: channel subscribers
// first, in subscription order, then, unless shard, every matching
// pattern's subscribers. Nothing is retained from channel or message.
func publishMessage[C, M ~string | ~[]byte](e *Engine, channel C, message M, shard bool) int {
	n := 0
	subs := e.pubsub.channels
	kind := "message"
	if shard {
		subs = e.pubsub.shard
		kind = "smessage"
	}
	for _, cl := range subs[string(channel)] {
		n++ // a client being closed still counts, as in Redis
		if cl.closeASAP {
			continue
		}
		w := e.Writer(cl)
		w.Push(3)
		w.BulkString(kind)
		appendBulk(w, channel)
		appendBulk(w, message)
		if len(w.B) > replyChunk {
			e.checkOutput(cl, true)
		}
	}
	if shard || len(e.pubsub.patterns) == 0 {
		return n
	}
	for _, it := range e.pubsub.patOrder.items {
		if it.dead || !glob.Match(it.s, channel, false) {
			continue
		}
		for _, cl := range e.pubsub.patterns[it.s] {
			n++
			if cl.closeASAP {
				continue
			}
			w := e.Writer(cl)
			w.Push(4)
			w.BulkString("pmessage")
			w.BulkString(it.s)
			appendBulk(w, channel)
			appendBulk(w, message)
			if len(w.B) > replyChunk {
				e.checkOutput(cl, true)
			}
		}
	}
	return n
}

// pushWriter is where subscription confirmations go. They are pushes, so
// Redis sends them even under CLIENT REPLY OFF/SKIP (CLIENT_PUSHING).
func (c *Ctx) pushWriter() *resp.Writer {
	if c.W == &c.E.scratch && c.C.Conn != nil {
		return c.E.Writer(c.C)
	}
	return c.W
}

// subscribeReply writes ["subscribe"|"psubscribe"|..., name, count].
func subscribeReply[S ~string | ~[]byte](w *resp.Writer, kind string, name S, count int) {
	w.Push(3)
	w.BulkString(kind)
	appendBulk(w, name)
	w.Int(int64(count))
}

// unsubscribeNoneReply is the reply to a mass unsubscribe with nothing to
// unsubscribe from: [kind, null, count].
func unsubscribeNoneReply(w *resp.Writer, kind string, count int) {
	w.Push(3)
	w.BulkString(kind)
	w.Null()
	w.Int(int64(count))
}

// subKind describes one flavour of subscription.
type subKind int

const (
	kindChannel subKind = iota // SUBSCRIBE
	kindPattern                // PSUBSCRIBE
	kindShard                  // SSUBSCRIBE
)

var subKindNames = [...][2]string{
	kindChannel: {"subscribe", "unsubscribe"},
	kindPattern: {"psubscribe", "punsubscribe"},
	kindShard:   {"ssubscribe", "sunsubscribe"},
}

func (k subKind) sets(e *Engine, c *Client) (*map[string]struct{}, map[string]subscribers) {
	switch k {
	case kindPattern:
		return &c.sub.patterns, e.pubsub.patterns
	case kindShard:
		return &c.sub.shard, e.pubsub.shard
	}
	return &c.sub.channels, e.pubsub.channels
}

// count is what a confirmation reports: channels plus patterns for classic
// pub/sub, shard channels alone for the shard flavour.
func (k subKind) count(c *Client) int {
	if k == kindShard {
		return len(c.sub.shard)
	}
	return len(c.sub.channels) + len(c.sub.patterns)
}

// subscribe adds c to name and writes the confirmation to w (when not nil).
func (e *Engine) subscribe(c *Client, k subKind, name []byte, w *resp.Writer) {
	mine, server := k.sets(e, c)
	if _, ok := (*mine)[string(name)]; !ok {
		s := string(name)
		if *mine == nil {
			*mine = map[string]struct{}{}
		}
		(*mine)[s] = struct{}{}
		server[s] = append(server[s], c)
		if k == kindPattern {
			c.sub.patOrder = append(c.sub.patOrder, s)
			if len(server[s]) == 1 {
				e.pubsub.patOrder.add(s)
			}
		}
	}
	if w != nil {
		subscribeReply(w, subKindNames[k][0], name, k.count(c))
	}
}

// unsubscribe removes c from name, writing the confirmation to w when w is
// not nil.
func (e *Engine) unsubscribe(c *Client, k subKind, name string, w *resp.Writer) {
	mine, server := k.sets(e, c)
	if _, ok := (*mine)[name]; ok {
		delete(*mine, name)
		if s := server[name].without(c); len(s) == 0 {
			delete(server, name)
			if k == kindPattern {
				e.pubsub.patOrder.remove(name)
			}
		} else {
			server[name] = s
		}
		if k == kindPattern {
			for i, p := range c.sub.patOrder {
				if p == name {
					c.sub.patOrder = append(c.sub.patOrder[:i], c.sub.patOrder[i+1:]...)
					break
				}
			}
		}
	}
	if w != nil {
		subscribeReply(w, subKindNames[k][1], name, k.count(c))
	}
}

// unsubscribeAll removes every subscription of kind k, confirming each one
// (or the absence of any) on w when w is not nil. Patterns go in
// subscription order as in Redis 7.0; channels, which Redis keeps in a hash
// table (arbitrary order), go in sorted order.
func (e *Engine) unsubscribeAll(c *Client, k subKind, w *resp.Writer) {
	var names []string
	if k == kindPattern {
		names = append(names, c.sub.patOrder...)
	} else {
		mine, _ := k.sets(e, c)
		for n := range *mine {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	for _, n := range names {
		e.unsubscribe(c, k, n, w)
	}
	if len(names) == 0 && w != nil {
		unsubscribeNoneReply(w, subKindNames[k][1], k.count(c))
	}
}

// UnsubscribeAllSilently drops every subscription of c without replying
// (RESET does this, as Redis's clearClientConnectionState).
func (e *Engine) UnsubscribeAllSilently(c *Client) {
	e.unsubscribeAll(c, kindChannel, nil)
	e.unsubscribeAll(c, kindShard, nil)
	e.unsubscribeAll(c, kindPattern, nil)
}

func (e *Engine) pubsubFreeClient(c *Client) { e.UnsubscribeAllSilently(c) }

// pubsub commands

func publishCommand(c *Ctx, args [][]byte) {
	c.W.Int(int64(publishMessage(c.E, args[1], args[2], false)))
}

func spublishCommand(c *Ctx, args [][]byte) {
	c.W.Int(int64(publishMessage(c.E, args[1], args[2], true)))
}

func subscribeCommand(c *Ctx, args [][]byte) {
	w := c.pushWriter()
	for _, ch := range args[1:] {
		c.E.subscribe(c.C, kindChannel, ch, w)
	}
}

func psubscribeCommand(c *Ctx, args [][]byte) {
	w := c.pushWriter()
	for _, p := range args[1:] {
		c.E.subscribe(c.C, kindPattern, p, w)
	}
}

func ssubscribeCommand(c *Ctx, args [][]byte) {
	// Redis refuses SSUBSCRIBE from a CLIENT_DENY_BLOCKING client, which
	// includes one running EXEC (SUBSCRIBE and PSUBSCRIBE are exempted
	// inside MULTI for backward compatibility).
	if c.InExec || c.InScript {
		c.Error(ErrSSubscribeDenyBlocking)
		return
	}
	w := c.pushWriter()
	for _, ch := range args[1:] {
		c.E.subscribe(c.C, kindShard, ch, w)
	}
}

func unsubscribeGeneric(c *Ctx, args [][]byte, k subKind) {
	w := c.pushWriter()
	if len(args) == 1 {
		c.E.unsubscribeAll(c.C, k, w)
		return
	}
	for _, ch := range args[1:] {
		c.E.unsubscribe(c.C, k, string(ch), w)
	}
}

func unsubscribeCommand(c *Ctx, args [][]byte)  { unsubscribeGeneric(c, args, kindChannel) }
func punsubscribeCommand(c *Ctx, args [][]byte) { unsubscribeGeneric(c, args, kindPattern) }
func sunsubscribeCommand(c *Ctx, args [][]byte) { unsubscribeGeneric(c, args, kindShard) }

func channelList(c *Ctx, args [][]byte, m map[string]subscribers) {
	if len(args) > 3 {
		c.Error(ErrSubcommandSyntax("pubsub", args[1]))
		return
	}
	var out []string
	for ch := range m {
		if len(args) == 2 || glob.Match(args[2], ch, false) {
			out = append(out, ch)
		}
	}
	c.W.StringArray(out)
}

func pubsubChannels(c *Ctx, args [][]byte) { channelList(c, args, c.E.pubsub.channels) }

func pubsubShardChannels(c *Ctx, args [][]byte) { channelList(c, args, c.E.pubsub.shard) }

func numsub(c *Ctx, args [][]byte, m map[string]subscribers) {
	c.W.Array(2 * (len(args) - 2))
	for _, ch := range args[2:] {
		c.W.Bulk(ch)
		c.W.Int(int64(len(m[string(ch)])))
	}
}

func pubsubNumsub(c *Ctx, args [][]byte) { numsub(c, args, c.E.pubsub.channels) }

func pubsubShardNumsub(c *Ctx, args [][]byte) { numsub(c, args, c.E.pubsub.shard) }

func pubsubNumpat(c *Ctx, args [][]byte) { c.W.Int(int64(len(c.E.pubsub.patterns))) }

var pubsubHelpLines = []string{
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
}

func pubsubHelp(c *Ctx, args [][]byte) { ReplyHelp(c, "PUBSUB", pubsubHelpLines) }
