package server

import "time"

// SlowRequest is a pipeline whose replies were written later than
// Config.SlowRequestThreshold after it arrived, with where that time
// went. The phases add up to Took.
type SlowRequest struct {
	// Client is the client's address.
	Client string
	// Commands is how many commands the pipeline held.
	Commands int
	// Took is from the host's kernel receiving the pipeline's last bytes
	// (its receive timestamp) to its replies written to the socket.
	Took time.Duration
	// Read: until the connection's reader read those bytes (waiting for
	// the reader goroutine to run). Queued: until the command goroutine
	// took the pipeline up (parsing, handing it over, the work ahead of
	// it). Run: until its replies were ready (its commands, and the rest
	// of the command goroutine's round, whose replies go out together).
	// Reply: until they were written (the reader running again, the
	// write).
	Read, Queued, Run, Reply time.Duration
}

// stamps are the moments of a timed batch (Unix ns, as the kernel's
// receive timestamps): read by its reader, taken up by the command
// goroutine, done (its replies ready).
type stamps struct {
	read, taken, done int64
}

// wallNow is the time in Unix ns, comparable with receive timestamps.
func wallNow() int64 { return time.Now().UnixNano() }

// slowRequest reports a batch that arrived at arrived, with stamps st
// and n commands, if its replies, written now, took the threshold or
// longer (the connection's reader, after it wrote them, or the event
// loop); client is the client's address.
func (s *Server) slowRequest(client string, arrived int64, st stamps, n int) {
	written := wallNow()
	took := time.Duration(written - arrived)
	if took < s.cfg.SlowRequestThreshold {
		return
	}
	// Clamped to the order the moments happen in, so that a clock step
	// makes no phase negative and the phases still add up to Took.
	read := min(max(st.read, arrived), written)
	taken := min(max(st.taken, read), written)
	done := min(max(st.done, taken), written)
	s.cfg.OnSlowRequest(SlowRequest{
		Client:   client,
		Commands: n,
		Took:     took,
		Read:     time.Duration(read - arrived),
		Queued:   time.Duration(taken - read),
		Run:      time.Duration(done - taken),
		Reply:    time.Duration(written - done),
	})
}
