package e2b

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"
)

// createRecheckDelay is how long the client waits before looking for a
// sandbox a second time, in case the first create is still in flight.
var createRecheckDelay = 500 * time.Millisecond

// CreateSandbox creates a sandbox (POST /sandboxes). 429 is retried. With an
// IdempotencyToken, an unknown outcome (connection error after sending, 5xx,
// timeout) makes the client look for a sandbox carrying the token before
// sending again, so one token never yields two sandboxes. Without a token
// such failures are returned as they are.
func (c *Client) CreateSandbox(ctx context.Context, req CreateSandboxRequest) (*Sandbox, error) {
	body := wireNewSandbox{
		TemplateID: req.TemplateID, AutoPause: req.AutoPause, Secure: req.Secure,
		AllowInternetAccess: req.AllowInternetAccess, Network: fromNetwork(req.Network),
		Metadata: req.Metadata, EnvVars: req.EnvVars,
		AutoPauseMemory: req.AutoPauseMemory, VolumeMounts: req.VolumeMounts, MCP: req.MCP,
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if len(req.IAMTokens) > 0 {
		body.IAM = &wireIAM{Tokens: req.IAMTokens}
	}
	if req.Timeout > 0 {
		body.Timeout = &req.Timeout
	}
	if req.AutoResume != nil {
		body.AutoResume = &wireAutoResume{Enabled: *req.AutoResume}
	}
	if req.IdempotencyToken != "" {
		body.Metadata = maps.Clone(req.Metadata)
		if body.Metadata == nil {
			body.Metadata = map[string]string{}
		}
		body.Metadata[IdempotencyMetadataKey] = req.IdempotencyToken
	}
	sb, err := c.createOnce(ctx, req, body)
	if err == nil {
		c.sandboxes.rememberSandbox(sb)
	}
	return sb, err
}

// createOnce sends the create, and with a token resolves unknown outcomes by
// looking the sandbox up instead of creating a second one.
func (c *Client) createOnce(ctx context.Context, req CreateSandboxRequest, body wireNewSandbox) (*Sandbox, error) {
	for attempt := 0; ; attempt++ {
		sb, err := c.postSandbox(ctx, body)
		if err == nil || req.IdempotencyToken == "" || !outcomeUnknown(err) || ctx.Err() != nil {
			return sb, err
		}
		found, lerr := c.FindSandboxByCreateToken(ctx, req.IdempotencyToken)
		if lerr != nil {
			return nil, fmt.Errorf("%w (and looking the sandbox up by its create token failed: %v)", err, lerr)
		}
		if found != nil {
			return found, nil
		}
		if attempt >= c.retryMax {
			return nil, err
		}
		if err := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, err
		}
	}
}

func (c *Client) postSandbox(ctx context.Context, body wireNewSandbox) (*Sandbox, error) {
	var w wireSandbox
	_, err := c.callAPI(ctx, apiCall{
		op: "create sandbox", method: http.MethodPost, path: "/sandboxes",
		class: retryRateLimited, body: body, out: &w,
	})
	if err != nil {
		return nil, err
	}
	return w.toSandbox(), nil
}

// outcomeUnknown says whether a create may have taken effect.
func outcomeUnknown(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	if e, ok := asAPIError(err); ok {
		return e.StatusCode >= 500
	}
	return false
}

// FindSandboxByCreateToken looks for a running or paused sandbox created with
// CreateSandboxRequest.IdempotencyToken token, twice with a short pause in
// between, and returns nil when none exists. A sandbox that is found but
// cannot then be read is still returned, from its list entry and without its
// envd access token: it exists, is billed, and must not be lost.
func (c *Client) FindSandboxByCreateToken(ctx context.Context, token string) (*Sandbox, error) {
	for check := 0; check < 2; check++ {
		if check > 0 {
			if err := sleepCtx(ctx, createRecheckDelay); err != nil {
				return nil, err
			}
		}
		list, err := c.ListSandboxes(ctx, ListSandboxesParams{
			States:   []string{"running", "paused"},
			Metadata: map[string]string{IdempotencyMetadataKey: token},
		})
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			if s.Metadata[IdempotencyMetadataKey] != token {
				continue
			}
			d, err := c.GetSandbox(ctx, s.SandboxID)
			if err != nil {
				return &Sandbox{SandboxID: s.SandboxID, TemplateID: s.TemplateID, ClientID: s.ClientID,
					Alias: s.Alias, EnvdVersion: s.EnvdVersion, partial: true}, nil
			}
			return &Sandbox{
				SandboxID: d.SandboxID, TemplateID: d.TemplateID, ClientID: d.ClientID, Alias: d.Alias,
				EnvdVersion: d.EnvdVersion, EnvdAccessToken: d.EnvdAccessToken, Domain: d.Domain,
			}, nil
		}
	}
	return nil, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
