package e2b

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// SnapshotInfo identifies a persistent snapshot: one build of a snapshot
// template. SnapshotID is "<template>:<tag>" and starts sandboxes from
// exactly that build. Names are the template's ("<namespace>/<name>"), without
// a tag. E2B lists a snapshot template once, as its newest build: the other
// snapshots of a name are found by their ID (FindSnapshot).
type SnapshotInfo struct {
	SnapshotID string
	Names      []string
}

// Template is the snapshot's template (its ID, or namespace/name when
// named), without the tag.
func (s SnapshotInfo) Template() string { t, _ := splitSnapshotID(s.SnapshotID); return t }

// ListSnapshotsParams filters GET /snapshots.
type ListSnapshotsParams struct {
	SandboxID, Name string
	Limit           int32 // page size; 0 = server default
}

type wireSnapshot struct {
	SnapshotID string   `json:"snapshotID"`
	Names      []string `json:"names"`
}

const (
	// snapshotTagPrefix starts the tag each named snapshot gets for itself.
	snapshotTagPrefix = "snap-"
	// defaultTag is the tag E2B assigns when none is given.
	defaultTag = "default"
)

// splitSnapshotID splits "<template>:<tag>"; the tag is "" when absent.
func splitSnapshotID(id string) (template, tag string) {
	template, tag, _ = strings.Cut(id, ":")
	return template, tag
}

// CreateSnapshot snapshots a running sandbox (it keeps running). Without a
// name the snapshot is a template of its own. With a name, E2B adds a build
// to the template of that name; the client gives the build a tag of its own
// ("<name>:snap-<random>"), so that every snapshot has an identity of its
// own, and DeleteSnapshot removes that build's tag and not the other
// snapshots of the name.
//
// It never makes two snapshots and never adopts one it did not make. When
// the answer is lost, the client lists the sandbox's snapshots until E2B can
// no longer be finishing the create, and only then sends it again. A named
// snapshot is this create's when it carries the create's random tag. An
// unnamed one has no mark a client can set, so the client lists the
// sandbox's snapshots first: exactly one new unnamed snapshot is this
// create's; more than one is an *UnknownCreateError naming them. What E2B's
// API cannot tell: an unnamed snapshot of the same sandbox that another
// client takes while this create's answer is lost is taken for this
// create's.
func (c *Client) CreateSnapshot(ctx context.Context, sandboxID, name string) (*SnapshotInfo, error) {
	body := struct {
		Name string `json:"name,omitempty"`
	}{}
	tag := ""
	if name != "" {
		if strings.Contains(name, ":") {
			return nil, fmt.Errorf("create snapshot: name %q must not carry a tag: each snapshot gets a tag of its own", name)
		}
		var err error
		if tag, err = newSnapshotTag(); err != nil {
			return nil, err
		}
		body.Name = name + ":" + tag
	}
	existed := map[string]bool{}
	if name == "" {
		before, err := c.ListSnapshots(ctx, ListSnapshotsParams{SandboxID: sandboxID})
		if err != nil {
			return nil, fmt.Errorf("create snapshot of %q: list its snapshots first (to tell the snapshot this create makes from those that exist): %w", sandboxID, err)
		}
		for _, s := range before {
			existed[s.SnapshotID] = true
		}
	}
	mayExist := fmt.Sprintf("an unnamed snapshot of sandbox %s taken after this create started", sandboxID)
	if tag != "" {
		mayExist = fmt.Sprintf("a snapshot of sandbox %s tagged %q", sandboxID, tag)
	}
	return createKept(ctx, c, keptCreate[SnapshotInfo]{
		kind: "snapshot", name: body.Name, mayExist: mayExist,
		idOf: func(s *SnapshotInfo) string { return s.SnapshotID },
		post: func(ctx context.Context) (*SnapshotInfo, error) {
			var w wireSnapshot
			_, err := c.callAPI(ctx, apiCall{
				op: "create snapshot", sandboxID: sandboxID, subject: sandboxID, method: http.MethodPost,
				path: "/sandboxes/" + pathSeg(sandboxID) + "/snapshots", class: retryRateLimited, body: body, out: &w,
			})
			if err != nil {
				return nil, err
			}
			return &SnapshotInfo{SnapshotID: w.SnapshotID, Names: w.Names}, nil
		},
		find: func(ctx context.Context) (*SnapshotInfo, error) {
			// A named snapshot is found by its name and tag: E2B lists a template once, as its
			// newest build, so the sandbox's listing may show another snapshot of the name.
			filter := ListSnapshotsParams{SandboxID: sandboxID}
			if tag != "" {
				filter = ListSnapshotsParams{Name: body.Name}
			}
			snaps, err := c.ListSnapshots(ctx, filter)
			if err != nil {
				return nil, err
			}
			var mine []SnapshotInfo
			for _, s := range snaps {
				_, t := splitSnapshotID(s.SnapshotID)
				switch {
				case tag != "" && t == tag:
					return &s, nil
				case tag == "" && !existed[s.SnapshotID] && len(s.Names) == 0:
					mine = append(mine, s)
				}
			}
			switch len(mine) {
			case 0:
				return nil, nil
			case 1:
				return &mine[0], nil
			}
			var ids []string
			for _, s := range mine {
				ids = append(ids, s.SnapshotID)
			}
			return nil, &UnknownCreateError{Kind: "snapshot", Candidates: ids, MayExist: mayExist}
		},
	})
}

func newSnapshotTag() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("create snapshot: random tag: %w", err)
	}
	return snapshotTagPrefix + hex.EncodeToString(b), nil
}

// ListSnapshots returns every page of GET /snapshots.
func (c *Client) ListSnapshots(ctx context.Context, p ListSnapshotsParams) ([]SnapshotInfo, error) {
	var all []SnapshotInfo
	err := collectPages("list snapshots", func(token string) (string, error) {
		q := pageQuery(p.Limit, token)
		if p.SandboxID != "" {
			q.Set("sandboxID", p.SandboxID)
		}
		if p.Name != "" {
			q.Set("name", p.Name)
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

// FindSnapshot returns the snapshot with this ID, or nil when it does not
// exist. It lists by the ID itself, "<template>:<tag>": E2B lists a snapshot
// template once, as its newest build (under the tag, when one is asked for),
// so neither the source sandbox's listing nor the whole one shows an older
// snapshot of a name.
func (c *Client) FindSnapshot(ctx context.Context, snapshotID string) (*SnapshotInfo, error) {
	snaps, err := c.ListSnapshots(ctx, ListSnapshotsParams{Name: snapshotID})
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		if s.SnapshotID == snapshotID {
			return &s, nil
		}
	}
	return nil, nil
}

// DeleteSnapshot deletes this snapshot and nothing else. A snapshot under a
// tag of its own (see CreateSnapshot) loses the tag, and its template goes
// too when no other tag is left on it. E2B never removes the default tag, so
// "<template>:default" deletes the whole template, as E2B's SDK does. A
// snapshot that no longer exists gives an error for which IsNotFound is true.
func (c *Client) DeleteSnapshot(ctx context.Context, snapshotID string) error {
	op := "delete snapshot " + strconv.Quote(snapshotID)
	template, tag := splitSnapshotID(snapshotID)
	if tag == "" || tag == defaultTag {
		return c.deleteTemplate(ctx, op, template)
	}
	tags, err := c.templateTags(ctx, op, template)
	if err != nil {
		return err
	}
	ours, others := false, 0
	for _, t := range tags {
		if t == tag {
			ours = true
		} else {
			others++
		}
	}
	switch {
	case !ours:
		return &APIError{Op: op, StatusCode: http.StatusNotFound, side: sideControl, shape: shapeE2B, notFound: true,
			Message: fmt.Sprintf("template %q has no build tagged %q", template, tag)}
	case others == 0:
		return c.deleteTemplate(ctx, op, template)
	}
	_, err = c.callAPI(ctx, apiCall{
		op: op, subject: templateSubject(template), method: http.MethodDelete, path: "/templates/tags",
		class: retryIdempotent, body: map[string]any{"name": template, "tags": []string{tag}},
	})
	return err
}

func (c *Client) deleteTemplate(ctx context.Context, op, template string) error {
	_, err := c.callAPI(ctx, apiCall{
		op: op, subject: templateSubject(template), method: http.MethodDelete,
		path: "/templates/" + pathSeg(template), class: retryIdempotent,
	})
	return err
}

// templateTags lists the tags of a template (GET /templates/{id}/tags).
func (c *Client) templateTags(ctx context.Context, op, template string) ([]string, error) {
	var w []struct {
		Tag string `json:"tag"`
	}
	_, err := c.callAPI(ctx, apiCall{
		op: op, subject: templateSubject(template), method: http.MethodGet,
		path: "/templates/" + pathSeg(template) + "/tags", class: retryIdempotent, out: &w,
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(w))
	for _, t := range w {
		out = append(out, t.Tag)
	}
	return out, nil
}
