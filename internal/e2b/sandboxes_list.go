package e2b

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ListedSandbox is one entry of GET /v2/sandboxes.
type ListedSandbox struct {
	SandboxID, TemplateID, ClientID, Alias, State, EnvdVersion string
	StartedAt, EndAt                                           time.Time
	CPUCount, MemoryMB, DiskSizeMB                             int32
	Metadata                                                   map[string]string
}

// ListSandboxesParams filters GET /v2/sandboxes. Empty fields are not sent.
type ListSandboxesParams struct {
	States       []string // "running", "paused"
	Metadata     map[string]string
	Template     string
	StartedAfter *time.Time
	Order        string // "asc" | "desc"
	Limit        int32  // page size 1..100; 0 = server default
}

type wireListedSandbox struct {
	SandboxID   string            `json:"sandboxID"`
	TemplateID  string            `json:"templateID"`
	ClientID    string            `json:"clientID"`
	Alias       string            `json:"alias"`
	State       string            `json:"state"`
	EnvdVersion string            `json:"envdVersion"`
	StartedAt   time.Time         `json:"startedAt"`
	EndAt       time.Time         `json:"endAt"`
	CPUCount    int32             `json:"cpuCount"`
	MemoryMB    int32             `json:"memoryMB"`
	DiskSizeMB  int32             `json:"diskSizeMB"`
	Metadata    map[string]string `json:"metadata"`
}

// EncodeMetadataQuery encodes a metadata filter the way E2B's SDKs do: each
// key and value is percent-encoded (encodeURIComponent) and the pairs are
// form-encoded into one string; the query encoding then adds a third layer.
func EncodeMetadataQuery(md map[string]string) string {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, 0, len(keys))
	for _, k := range keys {
		pairs = append(pairs, url.QueryEscape(encodeURIComponent(k))+"="+url.QueryEscape(encodeURIComponent(md[k])))
	}
	return strings.Join(pairs, "&")
}

func encodeURIComponent(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

func (p ListSandboxesParams) query(nextToken string) url.Values {
	q := pageQuery(p.Limit, nextToken)
	if len(p.States) > 0 {
		q.Set("state", strings.Join(p.States, ","))
	}
	if len(p.Metadata) > 0 {
		q.Set("metadata", EncodeMetadataQuery(p.Metadata))
	}
	if p.Template != "" {
		q.Set("template", p.Template)
	}
	if p.StartedAfter != nil {
		q.Set("startedAfter", p.StartedAfter.UTC().Format(time.RFC3339Nano))
	}
	if p.Order != "" {
		q.Set("order", p.Order)
	}
	return q
}

// pageQuery is the query of one page of a list: its size (1..100; 0 leaves
// E2B's default) and the token of the page (none for the first).
func pageQuery(limit int32, token string) url.Values {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(int(limit)))
	}
	if token != "" {
		q.Set("nextToken", token)
	}
	return q
}

// ListSandboxesPage returns one page and the token of the next ("" = last).
func (c *Client) ListSandboxesPage(ctx context.Context, p ListSandboxesParams, nextToken string) ([]ListedSandbox, string, error) {
	return c.listSandboxesPage(ctx, p, nextToken, true)
}

// listSandboxesPage lists one page; own removes the client's bookkeeping key
// from each sandbox's metadata.
func (c *Client) listSandboxesPage(ctx context.Context, p ListSandboxesParams, nextToken string, own bool) ([]ListedSandbox, string, error) {
	var w []wireListedSandbox
	res, err := c.callAPI(ctx, apiCall{
		op: "list sandboxes", method: http.MethodGet, path: "/v2/sandboxes",
		query: p.query(nextToken), class: retryIdempotent, out: &w,
	})
	if err != nil {
		return nil, "", err
	}
	out := make([]ListedSandbox, 0, len(w))
	for _, s := range w {
		if own {
			s.Metadata = userMetadata(s.Metadata)
		}
		out = append(out, ListedSandbox(s))
	}
	return out, res.header.Get("X-Next-Token"), nil
}

// ListSandboxes returns every page.
func (c *Client) ListSandboxes(ctx context.Context, p ListSandboxesParams) ([]ListedSandbox, error) {
	return c.listSandboxes(ctx, p, true)
}

func (c *Client) listSandboxes(ctx context.Context, p ListSandboxesParams, own bool) ([]ListedSandbox, error) {
	var all []ListedSandbox
	err := collectPages("list sandboxes", func(token string) (string, error) {
		page, next, err := c.listSandboxesPage(ctx, p, token, own)
		all = append(all, page...)
		return next, err
	})
	return all, err
}

// maxPages guards against a server that never stops handing out tokens.
const maxPages = 10000

// collectPages calls fetch with "" and then each returned token until the
// token is empty.
func collectPages(op string, fetch func(token string) (string, error)) error {
	seen := map[string]bool{}
	token := ""
	for range maxPages {
		next, err := fetch(token)
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("%s: server repeated page token %q", op, next)
		}
		seen[next] = true
		token = next
	}
	return fmt.Errorf("%s: more than %d pages", op, maxPages)
}
