package commands

// monitorState holds MONITOR clients.
type monitorState struct{}

func (e *Engine) monitorFreeClient(c *Client) {}
