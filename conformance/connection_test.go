package conformance

import "testing"

func TestPing(t *testing.T) {
	p := NewPair(t)
	p.Do("PING")
	p.Do("ping", "hello")
	p.Do("PING", "a", "b")
	p.Do("ECHO", "x")
	p.Do("ECHO")
	p.Do("NOSUCHCOMMAND", "a", "b")
	p.Do("SELECT", "15")
	p.Do("SELECT", "16")
	p.Do("SELECT", "-1")
	p.Do("SELECT", "x")
	p.Do("SELECT", "0")
}

func TestProtocolErrors(t *testing.T) {
	for _, raw := range []string{
		"*1\r\n$-5\r\n",
		"*1\r\nx\r\n",
		"*x\r\n",
		"*1\r\n$x\r\n",
		"\"unbalanced\r\n",
		"*2\r\n$4\r\nPING\r\n$600000000\r\n",
	} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.Receive()
		p.Closed(2e9)
	}
}

func TestInline(t *testing.T) {
	p := NewPair(t)
	p.SendRaw([]byte("PING\r\n"))
	p.Receive()
	p.SendRaw([]byte("set 'a b' \"c\\x41\\n\"\n"))
	p.Receive()
	p.Do("GET", "a b")
	p.SendRaw([]byte("\r\n*0\r\n*-1\r\nPING\r\n"))
	p.Receive()
}
