package config

// Client classes for client-output-buffer-limit (Redis's CLIENT_TYPE_*).
const (
	ClassNormal = iota
	ClassReplica
	ClassPubSub
)

// OutputBufferLimit is one class's client-output-buffer-limit: a client is
// closed when its output reaches Hard bytes, or stays at Soft bytes or
// more for more than SoftSeconds. 0 disables a limit.
type OutputBufferLimit struct {
	Hard, Soft  uint64
	SoftSeconds int64
}
