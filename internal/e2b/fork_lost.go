package e2b

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
)

// A fork carries no create token: E2B's fork API takes only a timeout and a count, and a fork's
// metadata is its source's. A fork whose answer was lost (a gateway's 504, a cut connection) is
// found by what E2B keeps instead: a sandbox that was not there before the fork was sent, with
// the source's template and exactly its metadata (any create token of the source included, so
// none of this client's creates matches). This process forks one sandbox at a time
// (teamLimits.forkTurn), so its own forks never pass for each other; a fork of a sandbox with
// the same template and metadata made by another client at the same moment cannot be told
// apart, and is reported (ForkUnsettledError), never adopted.

// ForkUnsettledError reports a fork whose answer was lost and that could not be pinned to one
// sandbox: Candidates are the sandboxes that may be it (none when the search itself failed).
type ForkUnsettledError struct {
	SourceID   string
	Candidates []string
	Err        error // why the fork gave no answer
	LookupErr  error // why the search failed, if it did
}

func (e *ForkUnsettledError) Error() string {
	if len(e.Candidates) > 0 {
		return fmt.Sprintf("fork sandbox %q: %v; E2B may have made the fork, and %d sandboxes started meanwhile "+
			"look like it (%s): another client forked the same source at the same time", e.SourceID, e.Err,
			len(e.Candidates), strings.Join(e.Candidates, ", "))
	}
	return fmt.Sprintf("fork sandbox %q: %v; E2B may have made the fork, and looking for it failed (%v): a sandbox "+
		"started since then from the source's template with exactly its metadata is this fork", e.SourceID, e.Err, e.LookupErr)
}

func (e *ForkUnsettledError) Unwrap() error { return e.Err }

// ForkOne forks one sandbox from a running one, never two. When the outcome is unknown it looks
// for the fork until E2B can no longer be making it; found after ctx ended, the fork comes back
// with a *CreateInterruptedError (it exists and is billed: keep it). A search that cannot pin
// the fork gives a *ForkUnsettledError. Nothing found means nothing was made: the error is
// returned and the fork is not sent again.
func (c *Client) ForkOne(ctx context.Context, id string, timeout int32) (*Sandbox, error) {
	return c.ForkOneWith(ctx, id, ForkOptions{Timeout: timeout})
}

// ForkOneWith is ForkOne with the fork's options.
func (c *Client) ForkOneWith(ctx context.Context, id string, opts ForkOptions) (*Sandbox, error) {
	select {
	case c.limits.forkTurn <- struct{}{}:
		defer func() { <-c.limits.forkTurn }()
	case <-ctx.Done():
		return nil, fmt.Errorf("fork sandbox %q: waiting for this process's other forks: %w", id, ctx.Err())
	}
	source, err := c.forkSource(ctx, id)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	out, err := c.forkRefusedAtLimit(ctx, id, opts)
	if err == nil {
		if len(out) != 1 {
			return nil, fmt.Errorf("fork sandbox %q: E2B answered %d results for one fork", id, len(out))
		}
		if out[0].Sandbox == nil {
			if out[0].Err == nil {
				return nil, fmt.Errorf("fork sandbox %q: E2B answered neither a sandbox nor an error", id)
			}
			return nil, out[0].Err
		}
		return out[0].Sandbox, nil
	}
	kind := createOutcome(ctx, err)
	if kind != outcomeUnknown && kind != outcomeE2BFailed {
		return nil, err
	}
	found, candidates, lerr := c.settleFork(ctx, source, sent, kind == outcomeE2BFailed)
	switch {
	case found != nil:
		return c.settledStart(ctx, found, err)
	case len(candidates) > 1 || lerr != nil:
		return nil, &ForkUnsettledError{SourceID: id, Candidates: candidates, Err: err, LookupErr: lerr}
	}
	return nil, err
}

// forkSourceInfo is what identifies a fork of a source: its template and metadata, and the
// sandboxes that already looked like a fork before this one was sent.
type forkSourceInfo struct {
	id, templateID string
	metadata       map[string]string // as stored, the client's create token included
	userMetadata   map[string]string // without it: the list filter
	before         map[string]bool
}

func (c *Client) forkSource(ctx context.Context, id string) (*forkSourceInfo, error) {
	d, err := c.GetSandbox(ctx, id)
	if err != nil {
		return nil, err
	}
	s := &forkSourceInfo{id: id, templateID: d.TemplateID, metadata: d.Metadata, userMetadata: d.Metadata}
	list, err := c.forkLookalikes(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("fork sandbox %q: listing sandboxes before the fork, to find it should its answer be lost: %w", id, err)
	}
	s.before = map[string]bool{}
	for _, l := range list {
		s.before[l.SandboxID] = true
		if l.SandboxID == id {
			s.metadata = l.Metadata
		}
	}
	return s, nil
}

// forkLookalikes lists the running and paused sandboxes carrying the source's metadata.
func (c *Client) forkLookalikes(ctx context.Context, s *forkSourceInfo) ([]ListedSandbox, error) {
	return c.listSandboxes(ctx, ListSandboxesParams{
		States: []string{SandboxStateRunning, SandboxStatePaused}, Metadata: s.userMetadata,
	}, false)
}

// settleFork looks for the fork, as settleCreate looks for a create.
func (c *Client) settleFork(ctx context.Context, s *forkSourceInfo, sent time.Time, e2bAnswered bool) (*Sandbox, []string, error) {
	ctx, cancel, until := settleLookup(ctx, sent, e2bAnswered)
	defer cancel()
	for check := 0; ; check++ {
		list, err := c.forkLookalikes(ctx, s)
		var candidates []string
		for _, l := range list {
			if !s.before[l.SandboxID] && l.TemplateID == s.templateID && maps.Equal(l.Metadata, s.metadata) {
				candidates = append(candidates, l.SandboxID)
			}
		}
		switch {
		case len(candidates) == 1:
			return c.forkFound(ctx, candidates[0], list), nil, nil
		case len(candidates) > 1:
			return nil, candidates, nil
		}
		wait, more := c.settleWait(check, until)
		if !more {
			return nil, nil, err
		}
		if serr := sleepCtx(ctx, wait); serr != nil {
			return nil, nil, errors.Join(err, serr)
		}
	}
}

// forkFound reads the fork found; one that cannot be read is still returned from its list entry
// (it exists and is billed), without its access token.
func (c *Client) forkFound(ctx context.Context, id string, list []ListedSandbox) *Sandbox {
	if d, err := c.GetSandbox(ctx, id); err == nil {
		sb := &Sandbox{SandboxID: d.SandboxID, TemplateID: d.TemplateID, ClientID: d.ClientID, Alias: d.Alias,
			EnvdVersion: d.EnvdVersion, EnvdAccessToken: d.EnvdAccessToken, Domain: d.Domain}
		c.sandboxes.rememberSandbox(sb)
		return sb
	}
	for _, l := range list {
		if l.SandboxID == id {
			return &Sandbox{SandboxID: l.SandboxID, TemplateID: l.TemplateID, ClientID: l.ClientID, Alias: l.Alias,
				EnvdVersion: l.EnvdVersion, partial: true}
		}
	}
	return &Sandbox{SandboxID: id, partial: true}
}
