//go:build !linux

package server

// arrivalReader is Linux's; elsewhere a request's arrival is when its
// reader read it, and the loop runs what its readers hand over as they
// hand it over.
type arrivalReader struct{}

func newArrivalReader(*conn) *arrivalReader { return nil }

func (*arrivalReader) Read([]byte) (int, int64, error) { panic("unreachable") }
func (*arrivalReader) handing()                        {}
func (*arrivalReader) handed()                         {}
func (*arrivalReader) done()                           {}
func (*arrivalReader) close()                          {}

type arrivals struct{}

func (*arrivals) shut() {}

func (s *Server) awaitEarlier(got []request) []request { return got }
