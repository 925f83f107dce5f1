package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lockkv/lockkv/internal/resp"
)

// locksMain is "lockkv locks": it lists the locks of a server with
// LOCKKV.LOCKS, one SCAN step (--count keys) per round trip until the
// cursor comes back 0, so the server never works on more than a step at a
// time, and prints a table (or, with --json, one JSON object a line).
func locksMain(args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("lockkv locks", flag.ContinueOnError)
	cf := addClientFlags(fs, 3*time.Second)
	match := fs.String("match", "", "only locks whose name matches this glob pattern (as SCAN's MATCH)")
	typ := fs.String("type", "", "only locks of this layout: reentrant, fair, readwrite, semaphore or string")
	count := fs.Int("count", 1000, "keys the server looks at per round trip (SCAN's COUNT)")
	db := fs.Int("db", 0, "database to list")
	asJSON := fs.Bool("json", false, "print one JSON object a line instead of a table")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "lockkv locks: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	tc, err := cf.tlsConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv locks: %v\n", err)
		return 2
	}
	c, err := dialClient(*cf.addr, tc, *cf.timeout, *cf.pass, *db)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv locks %s: %v\n", *cf.addr, err)
		return 1
	}
	defer c.nc.Close()
	var tw *tabwriter.Writer
	if !*asJSON {
		tw = tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTYPE\tLEASE\tHOLDERS\tWAITERS")
	}
	cursor := "0"
	n, redirects := 0, 0
	for {
		cmd := []string{"LOCKKV.LOCKS", cursor, "COUNT", strconv.Itoa(*count)}
		if *match != "" {
			cmd = append(cmd, "MATCH", *match)
		}
		if *typ != "" {
			cmd = append(cmd, "TYPE", *typ)
		}
		v, err := c.do(cmd...)
		if err != nil && strings.HasPrefix(err.Error(), "MOVED ") && cursor == "0" && redirects < 3 {
			// A cluster follower (--read-mode linearizable or lease)
			// sends reads to the leader: follow it, as redis-cli -c.
			redirects++
			to := err.Error()[strings.LastIndex(err.Error(), " ")+1:]
			if c, err = dialClient(to, tc, *cf.timeout, *cf.pass, *db); err != nil {
				fmt.Fprintf(os.Stderr, "lockkv locks %s: %v\n", to, err)
				return 1
			}
			defer c.nc.Close()
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "lockkv locks %s: %v\n", *cf.addr, err)
			return 1
		}
		if len(v.elems) != 2 {
			fmt.Fprintf(os.Stderr, "lockkv locks %s: unexpected reply\n", *cf.addr)
			return 1
		}
		for _, l := range v.elems[1].elems {
			n++
			printLock(stdout, tw, l)
		}
		cursor = v.elems[0].str
		if cursor == "0" {
			break
		}
	}
	if tw != nil {
		tw.Flush()
		fmt.Fprintf(stdout, "%d locks\n", n)
	}
	return 0
}

// printLock prints one LOCKKV.LOCKS entry (a flat name/value array).
func printLock(stdout io.Writer, tw *tabwriter.Writer, l respValue) {
	f := map[string]respValue{}
	for i := 0; i+1 < len(l.elems); i += 2 {
		f[l.elems[i].str] = l.elems[i+1]
	}
	ms := func(v string) string {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return (time.Duration(n) * time.Millisecond).String()
		}
		return "-"
	}
	if tw == nil {
		var b strings.Builder
		fmt.Fprintf(&b, `{"name":%s,"type":%s`, strconv.Quote(f["name"].str), strconv.Quote(f["type"].str))
		if m, ok := f["mode"]; ok {
			fmt.Fprintf(&b, `,"mode":%s`, strconv.Quote(m.str))
		}
		if p, ok := f["permits"]; ok {
			fmt.Fprintf(&b, `,"permits":%s`, p.str)
		}
		fmt.Fprintf(&b, `,"lease_ms":%s,"holders":[`, f["lease_ms"].str)
		for i, h := range f["holders"].elems {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%s,"count":%s,"lease_ms":%s}`, strconv.Quote(h.elems[0].str), h.elems[1].str, h.elems[2].str)
		}
		b.WriteString(`],"waiters":[`)
		for i, w := range f["waiters"].elems {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%s,"timeout_ms":%s}`, strconv.Quote(w.elems[0].str), w.elems[1].str)
		}
		b.WriteString("]}")
		fmt.Fprintln(stdout, b.String())
		return
	}
	typ := f["type"].str
	if m, ok := f["mode"]; ok {
		typ += " (" + m.str + ")"
	}
	if p, ok := f["permits"]; ok {
		typ += " (" + p.str + " free)"
	}
	var holders, waiters []string
	for _, h := range f["holders"].elems {
		s := h.elems[0].str + " x" + h.elems[1].str
		if h.elems[2].str != "-1" {
			s += " " + ms(h.elems[2].str)
		}
		holders = append(holders, s)
	}
	for _, w := range f["waiters"].elems {
		waiters = append(waiters, w.elems[0].str+" "+ms(w.elems[1].str))
	}
	if len(holders) == 0 {
		holders = []string{"(free)"}
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f["name"].str, typ, ms(f["lease_ms"].str), strings.Join(holders, ", "), strings.Join(waiters, ", "))
}

// dialClient connects, AUTHs and SELECTs.
func dialClient(addr string, tc *tls.Config, timeout time.Duration, pass string, db int) (*respClient, error) {
	nc, err := dialServer(addr, tc, timeout)
	if err != nil {
		return nil, err
	}
	c := &respClient{nc: nc, br: bufio.NewReader(nc), timeout: timeout}
	if pass != "" {
		if _, err := c.do("AUTH", pass); err != nil {
			nc.Close()
			return nil, err
		}
	}
	if db != 0 {
		if _, err := c.do("SELECT", strconv.Itoa(db)); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return c, nil
}

// respClient sends commands and reads RESP2 replies.
type respClient struct {
	nc      net.Conn
	br      *bufio.Reader
	timeout time.Duration
}

// respValue is a parsed RESP2 reply: str for simple strings, bulk
// strings and integers, elems for arrays.
type respValue struct {
	str   string
	elems []respValue
}

func (c *respClient) do(args ...string) (respValue, error) {
	var w resp.Writer
	w.Array(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
	c.nc.SetDeadline(time.Now().Add(c.timeout))
	if _, err := c.nc.Write(w.B); err != nil {
		return respValue{}, err
	}
	raw, err := resp.ReadReply(c.br, nil)
	if err != nil {
		return respValue{}, err
	}
	if raw[0] == '-' {
		return respValue{}, errors.New(string(raw[1 : len(raw)-2]))
	}
	v, _, err := parseRESP(raw)
	return v, err
}

// parseRESP parses one RESP2 reply that ReadReply read whole (its depth
// is bounded there).
func parseRESP(b []byte) (respValue, []byte, error) {
	i := strings.Index(string(b), "\r\n")
	if i < 1 {
		return respValue{}, nil, errors.New("malformed reply")
	}
	head, rest := string(b[1:i]), b[i+2:]
	switch b[0] {
	case '+', ':', '-':
		return respValue{str: head}, rest, nil
	case '$':
		n, err := strconv.Atoi(head)
		if err != nil || n < -1 || n+2 > len(rest) {
			return respValue{}, nil, errors.New("malformed bulk string")
		}
		if n < 0 {
			return respValue{}, rest, nil
		}
		return respValue{str: string(rest[:n])}, rest[n+2:], nil
	case '*':
		n, err := strconv.Atoi(head)
		if err != nil || n > len(rest) {
			return respValue{}, nil, errors.New("malformed array")
		}
		v := respValue{elems: make([]respValue, 0, max(n, 0))}
		for j := 0; j < n; j++ {
			var e respValue
			if e, rest, err = parseRESP(rest); err != nil {
				return respValue{}, nil, err
			}
			v.elems = append(v.elems, e)
		}
		return v, rest, nil
	}
	return respValue{}, nil, fmt.Errorf("unexpected reply type %q", b[0])
}
