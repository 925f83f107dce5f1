package conformance

import (
	"net"
	"testing"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testnet"
)

// MIGRATE against redis-server: each source migrates to a target of its
// own (redis-server, or lockkv), and the replies, what stays behind and
// what arrives must match.

type migratePair struct {
	*Pair
	tL, tR       *Conn  // the targets of lockkv's and Redis's MIGRATE
	portL, portR string // their ports
}

// mig sends MIGRATE to both sources, each naming its own target's port.
func (m *migratePair) mig(rest ...string) Value {
	m.t.Helper()
	la := append([]string{"MIGRATE", "127.0.0.1", m.portL}, rest...)
	ra := append([]string{"MIGRATE", "127.0.0.1", m.portR}, rest...)
	lv, err := m.L.Do(la...)
	if err != nil {
		m.t.Fatal(err)
	}
	rv, err := m.R.Do(ra...)
	if err != nil {
		m.t.Fatal(err)
	}
	m.check(ra, lv, rv, Equal(lv, rv))
	return rv
}

func (m *migratePair) targets() *Pair { return &Pair{t: m.t, L: m.tL, R: m.tR} }

func portOf(t *testing.T, c *Conn) string {
	_, port, err := net.SplitHostPort(c.NetConn().RemoteAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func newMigratePair(t *testing.T, lockkvTargets bool) *migratePair {
	p := NewPair(t)
	m := &migratePair{Pair: p}
	if lockkvTargets {
		m.tL = startOwnLockkv(t, lockkv.Config{})
		m.tR = startOwnLockkv(t, lockkv.Config{})
	} else {
		m.tL = startRedisT(t, t.TempDir())
		m.tR = startRedisT(t, t.TempDir())
	}
	m.portL, m.portR = portOf(t, m.tL), portOf(t, m.tR)
	return m
}

func TestMigrate(t *testing.T) {
	for _, lockkvTargets := range []bool{false, true} {
		name := "to redis-server"
		if lockkvTargets {
			name = "to lockkv"
		}
		t.Run(name, func(t *testing.T) {
			m := newMigratePair(t, lockkvTargets)
			keys := dumpFixtures(m.Pair)
			m.Do("PEXPIRE", "h:lp", "100000")
			m.mig("s:int", "0", "5000")
			m.Do("EXISTS", "s:int")
			m.targets().Do("GET", "s:int")
			m.mig("nosuchkey", "0", "5000")
			// BUSYKEY, then REPLACE; COPY keeps the source.
			m.Do("SET", "s:int", "again")
			m.mig("s:int", "0", "5000")
			m.Do("EXISTS", "s:int")
			m.mig("s:int", "0", "5000", "COPY", "REPLACE")
			m.Do("EXISTS", "s:int")
			m.targets().Do("GET", "s:int")
			// Every key at once, into database 2.
			args := []string{"", "2", "5000", "KEYS"}
			m.mig(append(args, append(keys, "nosuchkey")...)...)
			m.DoSorted("KEYS", "*")
			tp := m.targets()
			tp.Do("SELECT", "2")
			for _, k := range keys {
				sameKey(tp, k)
			}
			tp.DoApprox(500, "PTTL", "h:lp")
			// Some keys taken, some refused: the first error is reported,
			// the keys taken are deleted.
			m.Do("SET", "a", "1")
			m.Do("SET", "s:embstr", "x")
			m.mig("", "2", "5000", "KEYS", "a", "s:embstr")
			m.Do("EXISTS", "a", "s:embstr")
		})
	}
}

func TestMigrateErrors(t *testing.T) {
	m := newMigratePair(t, false)
	m.Do("SET", "k", "v")
	m.mig("k", "0", "1000", "AUTH")
	m.mig("k", "0", "1000", "AUTH2", "u")
	m.mig("k", "0", "1000", "KEYS", "k")
	m.mig("k", "0", "1000", "BOGUS")
	m.mig("k", "0", "x")
	m.mig("k", "x", "1000")
	m.mig("k", "0", "1000", "AUTH", "pw")
	m.mig("k", "0", "1000", "AUTH2", "user", "pw")
	m.Do("EXISTS", "k")
	m.mig("k", "99", "1000")
	m.Do("EXISTS", "k")
	// Nothing listens there.
	free, err := testnet.Addr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(free)
	m.portL, m.portR = port, port
	m.mig("k", "0", "200")
	m.Do("EXISTS", "k")
	m.Do("MIGRATE", "127.0.0.1", port, "k", "0")
}
