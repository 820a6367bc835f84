package e2b

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// SnapshotInfo identifies a persistent snapshot template.
type SnapshotInfo struct {
	SnapshotID string
	Names      []string
}

// ListSnapshotsParams filters GET /snapshots.
type ListSnapshotsParams struct {
	SandboxID, Name string
	Limit           int32 // page size; 0 = server default
}

type wireSnapshot struct {
	SnapshotID string   `json:"snapshotID"`
	Names      []string `json:"names"`
}

// CreateSnapshot snapshots a running sandbox (it keeps running). It is not
// retried on 5xx or connection errors: a second attempt would make another
// snapshot (or another build of a named one).
func (c *Client) CreateSnapshot(ctx context.Context, sandboxID, name string) (*SnapshotInfo, error) {
	body := struct {
		Name string `json:"name,omitempty"`
	}{name}
	var w wireSnapshot
	_, err := c.callAPI(ctx, apiCall{
		op: "create snapshot", sandboxID: sandboxID, method: http.MethodPost,
		path: "/sandboxes/" + pathSeg(sandboxID) + "/snapshots", class: retryRateLimited, body: body, out: &w,
	})
	if err != nil {
		return nil, err
	}
	return &SnapshotInfo{SnapshotID: w.SnapshotID, Names: w.Names}, nil
}

// ListSnapshots returns every page of GET /snapshots.
func (c *Client) ListSnapshots(ctx context.Context, p ListSnapshotsParams) ([]SnapshotInfo, error) {
	var all []SnapshotInfo
	err := collectPages("list snapshots", func(token string) (string, error) {
		q := url.Values{}
		if p.SandboxID != "" {
			q.Set("sandboxID", p.SandboxID)
		}
		if p.Name != "" {
			q.Set("name", p.Name)
		}
		if p.Limit > 0 {
			q.Set("limit", strconv.Itoa(int(p.Limit)))
		}
		if token != "" {
			q.Set("nextToken", token)
		}
		var w []wireSnapshot
		res, err := c.callAPI(ctx, apiCall{
			op: "list snapshots", sandboxID: p.SandboxID, method: http.MethodGet, path: "/snapshots",
			query: q, class: retryIdempotent, out: &w,
		})
		if err != nil {
			return "", err
		}
		for _, s := range w {
			all = append(all, SnapshotInfo(s))
		}
		return res.header.Get("X-Next-Token"), nil
	})
	return all, err
}

// DeleteSnapshot deletes a snapshot template (DELETE /templates/{id}).
func (c *Client) DeleteSnapshot(ctx context.Context, snapshotID string) error {
	_, err := c.callAPI(ctx, apiCall{
		op: "delete snapshot " + strconv.Quote(snapshotID), method: http.MethodDelete,
		path: "/templates/" + pathSeg(snapshotID), class: retryIdempotent,
	})
	return err
}
