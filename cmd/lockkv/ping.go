package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/lockkv/lockkv/internal/resp"
)

// pingMain is "lockkv ping": it connects to a server, AUTHs when given a
// password (--requirepass, or REDISCLI_AUTH as redis-cli reads it), sends
// PING and exits 0 on PONG, 1 otherwise with the reason. It is the
// container health check (Dockerfile), which needs no redis-cli.
func pingMain(args []string) int {
	fs := flag.NewFlagSet("lockkv ping", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:6379", "address of the server")
	pass := fs.String("requirepass", os.Getenv("REDISCLI_AUTH"), "password to AUTH with (default $REDISCLI_AUTH)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	tlsFlags := addClientTLSFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "lockkv ping: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	tc, err := tlsFlags.config(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv ping: %v\n", err)
		return 2
	}
	if err := ping(*addr, *pass, tc, *timeout); err != nil {
		fmt.Fprintf(os.Stderr, "lockkv ping %s: %v\n", *addr, err)
		return 1
	}
	fmt.Println("PONG")
	return 0
}

// clientTLSFlags are the TLS flags of lockkv's client subcommands.
type clientTLSFlags struct {
	useTLS                    *bool
	caFile, certFile, keyFile *string
}

func addClientTLSFlags(fs *flag.FlagSet) clientTLSFlags {
	return clientTLSFlags{
		useTLS:   fs.Bool("tls", false, "connect with TLS"),
		caFile:   fs.String("tls-ca-cert-file", "", "CA certificates (PEM) to check the server's certificate against (with --tls)"),
		certFile: fs.String("tls-cert-file", "", "client certificate (PEM), when the server asks for one"),
		keyFile:  fs.String("tls-key-file", "", "client private key (PEM)"),
	}
}

// config is the TLS configuration the flags ask for (nil without --tls).
func (f clientTLSFlags) config(addr string) (*tls.Config, error) {
	if !*f.useTLS {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if *f.caFile != "" {
		pem, err := os.ReadFile(*f.caFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no PEM certificate in %s", *f.caFile)
		}
	}
	if *f.certFile != "" || *f.keyFile != "" {
		cert, err := tls.LoadX509KeyPair(*f.certFile, *f.keyFile)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		tc.ServerName = host
	}
	return tc, nil
}

// dialServer connects to a server, with TLS when tc is set.
func dialServer(addr string, tc *tls.Config, timeout time.Duration) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout}
	if tc != nil {
		return tls.DialWithDialer(d, "tcp", addr, tc)
	}
	return d.Dial("tcp", addr)
}

// ping sends AUTH (with a password) and PING, and wants +PONG.
func ping(addr, pass string, tc *tls.Config, timeout time.Duration) error {
	nc, err := dialServer(addr, tc, timeout)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(timeout))
	var w resp.Writer
	if pass != "" {
		w.Array(2)
		w.BulkString("AUTH")
		w.BulkString(pass)
	}
	w.Array(1)
	w.BulkString("PING")
	if _, err := nc.Write(w.B); err != nil {
		return err
	}
	br := bufio.NewReader(nc)
	for i := 0; i < 1+btoi(pass != ""); i++ {
		reply, err := resp.ReadReply(br, nil)
		if err != nil {
			return err
		}
		if reply[0] == '-' {
			return errors.New(string(reply[1 : len(reply)-2]))
		}
		if i == btoi(pass != "") && string(reply) != "+PONG\r\n" {
			return fmt.Errorf("unexpected reply %q", reply)
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
