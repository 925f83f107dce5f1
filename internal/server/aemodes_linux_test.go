package server

// aeModes are the LOCKKV_AELOOP values a test of both connection paths
// runs with: the connection goroutines ("off") and the event loop.
var aeModes = []string{"off", "a"}
