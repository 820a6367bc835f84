package e2b

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Bounds of E2B's refresh: it extends a sandbox's life by 0 to 3600 s, at
// least 15 s, and never shortens it.
const (
	MinRefresh = 15 * time.Second
	MaxRefresh = time.Hour
)

// RefreshSandbox extends a running sandbox's life (POST
// /sandboxes/{id}/refreshes): its end becomes now + d unless it was later
// already. Its configured timeout stays as it was, so a resume later uses
// that one. Sending it again has the same effect (measured from a moment
// later), so it is retried like a read.
func (c *Client) RefreshSandbox(ctx context.Context, id string, d time.Duration) error {
	if d < MinRefresh || d > MaxRefresh || d%time.Second != 0 {
		return fmt.Errorf("refresh sandbox %q: duration %s must be whole seconds from %s to %s", id, d, MinRefresh, MaxRefresh)
	}
	_, err := c.callAPI(ctx, apiCall{
		op: "refresh sandbox", sandboxID: id, subject: id, method: http.MethodPost,
		path: "/sandboxes/" + pathSeg(id) + "/refreshes", class: retryIdempotent,
		body: map[string]int{"duration": int(d / time.Second)},
	})
	return err
}
