// Package bench drives a RESP server with a fixed client load and measures
// throughput and latency, so lockkv and redis-server can be compared on the
// same machine in the same run (cmd/lockkv-bench).
package bench

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/lockscripts"
)

// Workload is one kind of operation. Append appends the commands of one
// operation (numbered i, for connection conn) to buf; an operation may hold
// several commands, each answered by one reply.
type Workload struct {
	Name    string
	Cmds    int // commands (and replies) per operation
	Append  func(buf []byte, r *rand.Rand) []byte
	Preload func(c *Client) error // optional setup, run once before measuring
}

// Keyspace size the workloads draw keys from.
const keyspace = 100000

// Workloads returns the standard workloads.
func Workloads() []Workload {
	value := []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")[:32]
	return []Workload{
		{Name: "SET", Cmds: 1, Append: func(b []byte, r *rand.Rand) []byte {
			return AppendCommand(b, []byte("SET"), key("key:", r), value)
		}},
		{Name: "GET", Cmds: 1, Append: func(b []byte, r *rand.Rand) []byte {
			return AppendCommand(b, []byte("GET"), key("key:", r))
		}, Preload: func(c *Client) error {
			for i := 0; i < keyspace; i += 1000 {
				var buf []byte
				for j := i; j < i+1000; j++ {
					buf = AppendCommand(buf, []byte("SET"), []byte("key:"+strconv.Itoa(j)), value)
				}
				if err := c.Pipeline(buf, 1000); err != nil {
					return err
				}
			}
			return nil
		}},
		{Name: "HSET", Cmds: 1, Append: func(b []byte, r *rand.Rand) []byte {
			return AppendCommand(b, []byte("HSET"), key("hash:", r), []byte("field"), value)
		}},
		{Name: "HINCRBY+PEXPIRE", Cmds: 2, Append: func(b []byte, r *rand.Rand) []byte {
			k := key("lock:", r)
			b = AppendCommand(b, []byte("HINCRBY"), k, []byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1"), []byte("1"))
			return AppendCommand(b, []byte("PEXPIRE"), k, []byte("30000"))
		}},
		{Name: "EVALSHA", Cmds: 1, Append: func(b []byte, r *rand.Rand) []byte {
			// Redisson's reentrant lock acquire (lockscripts.Acquire) on a
			// random lock, as redis-benchmark EVALSHA runs it.
			return AppendCommand(b, []byte("EVALSHA"), acquireSHA, []byte("1"), key("lock:", r), []byte("30000"),
				[]byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1"))
		}, Preload: func(c *Client) error {
			sha, err := c.Do("SCRIPT", "LOAD", lockscripts.Acquire)
			if err == nil && sha != string(acquireSHA) {
				err = fmt.Errorf("SCRIPT LOAD answered %q, want %s", sha, acquireSHA)
			}
			return err
		}},
		{Name: "LPUSH", Cmds: 1, Append: func(b []byte, r *rand.Rand) []byte {
			return AppendCommand(b, []byte("LPUSH"), key("list:", r), value)
		}},
		{Name: "ZADD", Cmds: 1, Append: func(b []byte, r *rand.Rand) []byte {
			return AppendCommand(b, []byte("ZADD"), key("zset:", r), []byte(strconv.Itoa(r.IntN(1000000))), key("m:", r))
		}},
	}
}

// acquireSHA is the SHA1 of lockscripts.Acquire, in hex.
var acquireSHA = func() []byte {
	h := sha1.Sum([]byte(lockscripts.Acquire))
	return []byte(hex.EncodeToString(h[:]))
}()

func key(prefix string, r *rand.Rand) []byte {
	b := make([]byte, 0, len(prefix)+8)
	b = append(b, prefix...)
	return strconv.AppendInt(b, int64(r.IntN(keyspace)), 10)
}

// AppendCommand appends args encoded as a RESP array.
func AppendCommand(b []byte, args ...[]byte) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// Client is a minimal RESP client that skips over replies without
// building values, so the load generator costs as little as possible.
type Client struct {
	nc net.Conn
	r  *bufio.Reader
}

// Dial connects to addr.
func Dial(addr string) (*Client, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &Client{nc: nc, r: bufio.NewReaderSize(nc, 64*1024)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.nc.Close() }

// Pipeline writes buf and reads n replies; an error reply fails.
func (c *Client) Pipeline(buf []byte, n int) error {
	if _, err := c.nc.Write(buf); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := c.skip(); err != nil {
			return err
		}
	}
	return nil
}

// Do sends one command and returns its reply line (for simple replies) or
// bulk payload.
func (c *Client) Do(args ...string) (string, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	if _, err := c.nc.Write(AppendCommand(nil, bs...)); err != nil {
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = line[:len(line)-2]
	switch line[0] {
	case '-':
		return "", errors.New(line[1:])
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "", nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		for i := 0; i < n; i++ {
			if err := c.skip(); err != nil {
				return "", err
			}
		}
		return line, nil
	}
	return line[1:], nil
}

// SetDeadline sets the connection's read and write deadline.
func (c *Client) SetDeadline(t time.Time) error { return c.nc.SetDeadline(t) }

// Reply is one reply as Exchange reads it: its type byte, the value of an
// integer, whether it is a null, and an error reply's text (without the
// '-'). Bulk and aggregate payloads are skipped.
type Reply struct {
	Kind byte
	Int  int64
	Null bool
	Err  string
}

// Exchange writes buf and reads len(out) replies into out. Error replies
// land in out; the returned error is the connection's or the protocol's.
func (c *Client) Exchange(buf []byte, out []Reply) error {
	if _, err := c.nc.Write(buf); err != nil {
		return err
	}
	for i := range out {
		if err := c.readReply(&out[i]); err != nil {
			return err
		}
	}
	return nil
}

func (c *Client) readReply(r *Reply) error {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short reply line %q", line)
	}
	*r = Reply{Kind: line[0]}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', ',', '#', '(':
		return nil
	case '-':
		r.Err = string(body)
		return nil
	case '_':
		r.Null = true
		return nil
	case ':':
		r.Int, err = strconv.ParseInt(string(body), 10, 64)
		return err
	case '$', '=', '!', '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(string(body))
		if err != nil {
			return err
		}
		switch {
		case n < 0:
			r.Null = true
			return nil
		case line[0] == '$' || line[0] == '=' || line[0] == '!':
			_, err = c.r.Discard(n + 2)
			return err
		case line[0] == '%' || line[0] == '|':
			n *= 2
		}
		for ; n > 0; n-- {
			if err := c.skip(); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown reply %q", line)
}

// ReadStrings reads one array reply of bulk strings and integers, such as a
// pub/sub message ("message", channel, payload) or a subscription's
// confirmation, and returns its elements as text.
func (c *Client) ReadStrings() ([]string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || (line[0] != '*' && line[0] != '>') {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(line[1 : len(line)-2])
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, max(n, 0))
	for i := 0; i < n; i++ {
		el, err := c.r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if len(el) < 3 {
			return nil, fmt.Errorf("short element %q", el)
		}
		switch el[0] {
		case ':':
			out = append(out, el[1:len(el)-2])
		case '$':
			m, err := strconv.Atoi(el[1 : len(el)-2])
			if err != nil {
				return nil, err
			}
			if m < 0 {
				out = append(out, "")
				continue
			}
			b := make([]byte, m+2)
			if _, err := io.ReadFull(c.r, b); err != nil {
				return nil, err
			}
			out = append(out, string(b[:m]))
		default:
			return nil, fmt.Errorf("unexpected element %q", el)
		}
	}
	return out, nil
}

var errReply = errors.New("error reply")

// skip reads one reply and discards it; an error reply (at any depth)
// fails.
func (c *Client) skip() error {
	var r Reply
	if err := c.readReply(&r); err != nil {
		return err
	}
	if r.Kind == '-' {
		return fmt.Errorf("%w: %s", errReply, r.Err)
	}
	return nil
}

// Result is one measured run.
type Result struct {
	Ops       int64
	Elapsed   time.Duration
	OpsPerSec float64
	P50, P99  time.Duration
	Max       time.Duration // the slowest round trip
}

// Run drives addr with conns connections for d, each sending pipeline
// operations at a time and waiting for their replies. Latency is measured
// per round trip (one operation, or one pipeline of operations). mark, if
// not nil, is called when the measured window opens (every connection
// dialled) and when it closes (every operation answered, before the
// connections close), so that a caller can read the servers' CPU time over
// exactly the window that Result.Ops counts.
func Run(addr string, w Workload, conns, pipeline int, d time.Duration, mark func()) (Result, error) {
	clients := make([]*Client, conns)
	for i := range clients {
		c, err := Dial(addr)
		if err != nil {
			for _, c := range clients[:i] {
				c.Close()
			}
			return Result{}, err
		}
		clients[i] = c
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var (
		wg       sync.WaitGroup
		ops      atomic.Int64
		stop     atomic.Bool
		firstErr error
		errOnce  sync.Once
		lats     = make([][]time.Duration, conns)
	)
	if mark != nil {
		mark()
	}
	start := time.Now()
	for i, c := range clients {
		wg.Add(1)
		go func(i int, c *Client) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 42))
			var buf []byte
			lat := make([]time.Duration, 0, 1<<12) // grows; 1,000 connections stay small
			for !stop.Load() {
				buf = buf[:0]
				for j := 0; j < pipeline; j++ {
					buf = w.Append(buf, r)
				}
				t0 := time.Now()
				if err := c.Pipeline(buf, pipeline*w.Cmds); err != nil {
					errOnce.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				lat = append(lat, time.Since(t0))
				ops.Add(int64(pipeline))
			}
			lats[i] = lat
		}(i, c)
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	if mark != nil {
		mark()
	}
	if firstErr != nil {
		return Result{}, firstErr
	}
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	slices.Sort(all)
	res := Result{Ops: ops.Load(), Elapsed: elapsed}
	res.OpsPerSec = float64(res.Ops) / elapsed.Seconds()
	if len(all) > 0 {
		res.P50 = all[len(all)/2]
		res.P99 = all[len(all)*99/100]
		res.Max = all[len(all)-1]
	}
	return res, nil
}

// Median returns the median of xs (xs is sorted in place).
func Median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
