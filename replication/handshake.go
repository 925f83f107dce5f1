package replication

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	crand "crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// The Raft handshake. Every Raft connection, in every mode, starts with it,
// before hashicorp/raft reads or writes a byte (see DESIGN.md, "Who may
// speak Raft"):
//
//  1. dialer -> listener: hello (magic, flags, nonce, cluster ID, node ID,
//     advertised Raft address)
//  2. listener -> dialer: hello
//  3. with a shared secret, dialer -> listener: HMAC-SHA256(key, "dialer"
//     label, both hellos, TLS channel binding): the dialer proves itself
//     first, so a stranger who connects learns nothing keyed
//  4. listener -> dialer: a status byte, then with a secret
//     HMAC-SHA256(key, "listener" label, both hellos, binding)
//
// Both sides refuse when one uses a secret and the other does not, when a
// MAC is wrong (constant-time compare), and when both know a cluster ID and
// the IDs differ. Each hello is at most maxHello bytes and the whole
// exchange has a deadline, so a silent or slow peer costs a goroutine and a
// socket for handshakeTimeout at most.

const (
	helloMagic = "LKVRAFT1"
	// helloFixed is the fixed part: magic, flags, nonce, ID length.
	helloFixed = len(helloMagic) + 1 + nonceSize + 1
	nonceSize  = 32
	idSize     = 16
	// maxHello bounds a hello: the fixed part, an ID, and two strings of
	// at most 255 bytes with their length bytes.
	maxHello = helloFixed + idSize + 2*(1+255)

	helloSecret   = 1 // flag: MACs follow
	helloHasState = 2 // flag: the sender has Raft state (a log, a snapshot)

	macDialer   = "lockkv raft handshake v1: dialer"
	macListener = "lockkv raft handshake v1: listener"
	// tlsBindingLabel names the TLS exporter the MACs bind to the TLS
	// session (RFC 5705/8446), when TLS is on.
	tlsBindingLabel = "EXPORTER-lockkv-raft-handshake-v1"
	// keySalt makes keys derived from a secret or a requirepass lockkv's
	// own; keyIterations slows offline guessing of a weak password (about
	// 30 ms once at start).
	keySalt       = "lockkv raft secret v1"
	keyIterations = 200_000

	statusOK         = 0
	statusIDMismatch = 1

	// handshakeTimeout bounds an incoming connection's whole handshake
	// (TLS included).
	handshakeTimeout = 5 * time.Second
)

// deriveKey turns a shared secret (--raft-secret, or --requirepass) into
// the handshake's HMAC key.
func deriveKey(secret string) []byte {
	k, err := pbkdf2.Key(sha256.New, secret, []byte(keySalt), keyIterations, 32)
	if err != nil {
		panic(err) // only for an impossible key length
	}
	return k
}

// hello is one side's first message.
type hello struct {
	flags     byte
	nonce     [nonceSize]byte
	clusterID []byte // empty or idSize bytes
	nodeID    string
	addr      string
}

// PeerInfo is what the other end of a Raft connection said about itself
// in its hello (authenticated when a secret or TLS is used).
type PeerInfo struct {
	NodeID    string
	RaftAddr  string // as the peer advertises it
	ClusterID string // hex; "" when the peer knows none yet
	HasState  bool   // the peer has a Raft log or snapshot
}

func (h *hello) info() PeerInfo {
	return PeerInfo{NodeID: h.nodeID, RaftAddr: h.addr, ClusterID: hex.EncodeToString(h.clusterID), HasState: h.flags&helloHasState != 0}
}

func (h *hello) encode() []byte {
	b := make([]byte, 0, maxHello)
	b = append(b, helloMagic...)
	b = append(b, h.flags)
	b = append(b, h.nonce[:]...)
	b = append(b, byte(len(h.clusterID)))
	b = append(b, h.clusterID...)
	b = append(b, byte(len(h.nodeID)))
	b = append(b, h.nodeID...)
	b = append(b, byte(len(h.addr)))
	b = append(b, h.addr...)
	return b
}

// errNotLockkv is a first message that is not a hello: a peer that speaks
// Raft (or anything else) without the handshake.
var errNotLockkv = errors.New("not a lockkv Raft handshake")

// readHello reads one hello and returns it with its exact bytes (which the
// MACs cover). It reads no byte past the hello.
func readHello(r io.Reader) (*hello, []byte, error) {
	// buf's capacity is maxHello: the lengths read below (an ID of 0 or
	// idSize bytes, strings of at most 255) keep it within.
	buf := make([]byte, 0, maxHello)
	read := func(n int) ([]byte, error) {
		start := len(buf)
		buf = buf[:start+n]
		_, err := io.ReadFull(r, buf[start:])
		return buf[start:], err
	}
	fixed, err := read(helloFixed)
	if err != nil {
		return nil, nil, err
	}
	if string(fixed[:len(helloMagic)]) != helloMagic {
		return nil, nil, errNotLockkv
	}
	h := &hello{flags: fixed[len(helloMagic)]}
	copy(h.nonce[:], fixed[len(helloMagic)+1:])
	idLen := int(fixed[helloFixed-1])
	if idLen != 0 && idLen != idSize {
		return nil, nil, fmt.Errorf("bad cluster ID length %d", idLen)
	}
	// Each field is read with the length byte of the next.
	b, err := read(idLen + 1)
	if err != nil {
		return nil, nil, err
	}
	h.clusterID = append([]byte(nil), b[:idLen]...)
	if b, err = read(int(b[idLen]) + 1); err != nil {
		return nil, nil, err
	}
	h.nodeID = string(b[:len(b)-1])
	if b, err = read(int(b[len(b)-1])); err != nil {
		return nil, nil, err
	}
	h.addr = string(b)
	return h, buf, nil
}

// handshakeAuth is one node's side of the handshake: its key (nil without
// a secret) and what its hello says.
type handshakeAuth struct {
	key   []byte
	local func() hello // the node's current hello fields (nonce aside)
}

// mac is the proof of one side: HMAC-SHA256 over its label, both hellos
// (length-prefixed, dialer's first) and the TLS binding.
func (a *handshakeAuth) mac(label string, dialerHello, listenerHello, binding []byte) []byte {
	m := hmac.New(sha256.New, a.key)
	for _, part := range [][]byte{[]byte(label), dialerHello, listenerHello, binding} {
		var n [4]byte
		n[0], n[1], n[2], n[3] = byte(len(part)>>24), byte(len(part)>>16), byte(len(part)>>8), byte(len(part))
		m.Write(n[:])
		m.Write(part)
	}
	return m.Sum(nil)
}

// tlsBinding is the TLS session's exporter value, nil on a plain
// connection: it ties the MACs to this TLS session.
func tlsBinding(c net.Conn) ([]byte, error) {
	tc, ok := c.(*tls.Conn)
	if !ok {
		return nil, nil
	}
	cs := tc.ConnectionState()
	return cs.ExportKeyingMaterial(tlsBindingLabel, nil, 32)
}

func (a *handshakeAuth) newHello() (*hello, []byte) {
	h := a.local()
	if a.key != nil {
		h.flags |= helloSecret
	}
	crand.Read(h.nonce[:])
	return &h, h.encode()
}

// handshakeError is a refusal, with what to log.
type handshakeError struct {
	// key is what the refusal is logged once per (a peer's address and
	// the reason), so retries do not flood the log.
	key string
	msg string
}

func (e *handshakeError) Error() string { return e.msg }

func refusal(key, format string, args ...any) *handshakeError {
	return &handshakeError{key: key, msg: fmt.Sprintf(format, args...)}
}

// checkModes refuses a peer whose use of a secret differs from ours.
// key is the peer's address as the refusal is logged once for.
func (a *handshakeAuth) checkModes(peer *hello, key, who string) error {
	theirs := peer.flags&helloSecret != 0
	ours := a.key != nil
	switch {
	case ours && !theirs:
		return refusal(key+" nosecret", "Raft peer %s uses no Raft secret, this node does (--raft-secret or --requirepass): refused", who)
	case !ours && theirs:
		return refusal(key+" secret", "Raft peer %s uses a Raft secret (--raft-secret or --requirepass), this node does not: refused", who)
	}
	return nil
}

// clusterIDsMatch is the cluster identity rule: connections between nodes
// of two different clusters are refused; a node that does not know its
// cluster's ID yet (a new node waiting to be added, a cluster's first
// moments) talks to anyone authenticated.
func clusterIDsMatch(a, b []byte) bool {
	return len(a) == 0 || len(b) == 0 || string(a) == string(b)
}

// dialHandshake runs the dialer's side on c, which has its deadline set.
func (a *handshakeAuth) dialHandshake(c net.Conn, target string) (*hello, error) {
	mine, mineB := a.newHello()
	if _, err := c.Write(mineB); err != nil {
		return nil, err
	}
	peer, peerB, err := readHello(c)
	if err != nil {
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, refusal(target+" eof", "Raft peer %s closed the connection during the handshake (is it lockkv of this version, with the same TLS settings?)", target)
		}
		return nil, err
	}
	if err := a.checkModes(peer, target, fmt.Sprintf("%s (node %q)", target, peer.nodeID)); err != nil {
		return nil, err
	}
	binding, err := tlsBinding(c)
	if err != nil {
		return nil, err
	}
	if a.key != nil {
		if _, err := c.Write(a.mac(macDialer, mineB, peerB, binding)); err != nil {
			return nil, err
		}
	}
	var status [1]byte
	if _, err := io.ReadFull(c, status[:]); err != nil {
		if a.key != nil && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil, refusal(target+" badkey", "Raft peer %s (node %q) refused this node's proof: the Raft secrets (--raft-secret, or --requirepass) differ", target, peer.nodeID)
		}
		return nil, err
	}
	if a.key != nil && status[0] == statusOK {
		want := a.mac(macListener, mineB, peerB, binding)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(c, got); err != nil {
			return nil, err
		}
		if !hmac.Equal(got, want) {
			return nil, refusal(target+" badkey", "Raft peer %s (node %q) failed to prove the Raft secret: refused", target, peer.nodeID)
		}
	}
	switch {
	case status[0] == statusIDMismatch || (status[0] == statusOK && !clusterIDsMatch(mine.clusterID, peer.clusterID)):
		return nil, refusal(target+" cluster "+hex.EncodeToString(peer.clusterID),
			"Raft peer %s (node %q) belongs to another cluster (its cluster ID %s, ours %s): refused",
			target, peer.nodeID, hex.EncodeToString(peer.clusterID), hex.EncodeToString(mine.clusterID))
	case status[0] != statusOK:
		return nil, fmt.Errorf("Raft peer %s refused the handshake (status %d)", target, status[0])
	}
	return peer, nil
}

// acceptHandshake runs the listener's side on c, which has its deadline
// set. remote names the peer in logs (its address without the port: one
// refusal log per host and reason).
func (a *handshakeAuth) acceptHandshake(c net.Conn, remote string) (*hello, error) {
	peer, peerB, err := readHello(c)
	if err != nil {
		if err == errNotLockkv {
			return nil, refusal(remote+" nothello", "Raft connection from %s refused: it did not start with lockkv's handshake (a plain Raft client, or another program)", remote)
		}
		return nil, refusal(remote+" hello", "Raft connection from %s refused during the handshake: %v", remote, err)
	}
	who := fmt.Sprintf("%s (node %q, advertising %s)", remote, peer.nodeID, peer.addr)
	mine, mineB := a.newHello()
	if _, err := c.Write(mineB); err != nil {
		return nil, err
	}
	if err := a.checkModes(peer, remote, who); err != nil {
		return nil, err
	}
	binding, err := tlsBinding(c)
	if err != nil {
		return nil, err
	}
	if a.key != nil {
		want := a.mac(macDialer, peerB, mineB, binding)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(c, got); err != nil {
			return nil, refusal(remote+" nomac", "Raft connection from %s refused: no proof of the Raft secret: %v", who, err)
		}
		if !hmac.Equal(got, want) {
			return nil, refusal(remote+" badkey", "Raft connection from %s refused: wrong Raft secret (--raft-secret, or --requirepass, differs)", who)
		}
	}
	if !clusterIDsMatch(mine.clusterID, peer.clusterID) {
		c.Write([]byte{statusIDMismatch})
		return nil, refusal(remote+" cluster "+hex.EncodeToString(peer.clusterID),
			"Raft connection from %s refused: it belongs to another cluster (its cluster ID %s, ours %s)",
			who, hex.EncodeToString(peer.clusterID), hex.EncodeToString(mine.clusterID))
	}
	reply := []byte{statusOK}
	if a.key != nil {
		reply = append(reply, a.mac(macListener, peerB, mineB, binding)...)
	}
	if _, err := c.Write(reply); err != nil {
		return nil, err
	}
	return peer, nil
}
