package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lockkv/lockkv/internal/rdbrestore"
	"github.com/lockkv/lockkv/internal/resp"
)

// restoreMain is "lockkv restore-rdb [flags] FILE": it replays an RDB file
// (lockkv's SAVE, or a redis-server dump.rdb) into a running server as
// RESTORE ... ABSTTL REPLACE and FUNCTION RESTORE ... REPLACE commands.
// On a cluster it is sent to the leader (a MOVED reply names it), and the
// keys go through the log like any write. It works against redis-server
// as well.
func restoreMain(args []string) int {
	fs := flag.NewFlagSet("lockkv restore-rdb", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:6379", "address of the server (on a cluster, the leader)")
	pass := fs.String("requirepass", os.Getenv("REDISCLI_AUTH"), "password to AUTH with (default $REDISCLI_AUTH)")
	timeout := fs.Duration("timeout", time.Minute, "how long to wait for each batch of replies")
	tlsFlags := addClientTLSFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "lockkv restore-rdb: want one RDB file: lockkv restore-rdb [--addr host:port] [--requirepass pw] dump.rdb")
		return 2
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv restore-rdb: %v\n", err)
		return 1
	}
	tc, err := tlsFlags.config(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv restore-rdb: %v\n", err)
		return 2
	}
	nc, err := dialServer(*addr, tc, 10*time.Second)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv restore-rdb %s: %v\n", *addr, err)
		return 1
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	if *pass != "" {
		var w resp.Writer
		w.Array(2)
		w.BulkString("AUTH")
		w.BulkString(*pass)
		nc.SetDeadline(time.Now().Add(*timeout))
		nc.Write(w.B)
		reply, err := resp.ReadReply(br, nil)
		if err == nil && reply[0] == '-' {
			err = errors.New(strings.TrimSpace(string(reply[1:])))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "lockkv restore-rdb %s: AUTH: %v\n", *addr, err)
			return 1
		}
	}
	nc.SetDeadline(time.Time{})
	rw := struct {
		io.Reader
		io.Writer
	}{br, nc}
	st, err := rdbrestore.Restore(rw, data)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv restore-rdb %s: %v (%d keys and %d function libraries sent before)\n", *addr, err, st.Keys, st.Functions)
		return 1
	}
	fmt.Printf("restored %d keys and %d function libraries from %s\n", st.Keys, st.Functions, fs.Arg(0))
	return 0
}
