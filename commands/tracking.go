package commands

// trackingState holds client-side caching state.
type trackingState struct{}

// trackClient is a client's tracking configuration.
type trackClient struct{}

func (e *Engine) initTracking() {}

func (e *Engine) trackingInvalidate(key string) {}

func (e *Engine) trackingFreeClient(c *Client) {}
