package e2b

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"time"
)

// Timing of the search for a sandbox whose create got no clear answer.
var (
	// createSettleWindow is how long after a create was sent E2B may still
	// finish it: its API ends every request after 70 s.
	createSettleWindow = 75 * time.Second
	// createRecheckDelay is the first pause between two searches.
	createRecheckDelay = 500 * time.Millisecond
	// lostCreateLookupTimeout bounds the search once the caller's context
	// has ended (the caller gave up, the sandbox may exist anyway).
	lostCreateLookupTimeout = 30 * time.Second
)

// CreateInterruptedError is returned together with a sandbox when the
// caller's context ended before the create answered but the sandbox was
// found afterwards: it exists and is billed, so the caller must keep it.
type CreateInterruptedError struct {
	SandboxID string
	Err       error // why the create gave no answer
}

func (e *CreateInterruptedError) Error() string {
	return fmt.Sprintf("create sandbox: the caller stopped waiting before E2B answered (%v), but E2B made sandbox %s", e.Err, e.SandboxID)
}

func (e *CreateInterruptedError) Unwrap() error { return e.Err }

// CreateUnsettledError reports a create that may have taken effect and
// could not be looked up: a sandbox may exist whose metadata carries
// IdempotencyMetadataKey = Token.
type CreateUnsettledError struct {
	Token          string
	Err, LookupErr error
}

func (e *CreateUnsettledError) Error() string {
	return fmt.Sprintf("%v; E2B may have made the sandbox anyway, and looking for it failed (%v): "+
		"a sandbox whose metadata has %s=%s is one this create made", e.Err, e.LookupErr, IdempotencyMetadataKey, e.Token)
}

func (e *CreateUnsettledError) Unwrap() error { return e.Err }

// CreateSandbox creates a sandbox (POST /v2/sandboxes, or POST /sandboxes
// where the server lacks v2 or Secure is false), never two. Each call
// tags its sandbox with a random create token in metadata. When the outcome
// is unknown (no answer, a gateway's 5xx, the caller's context ending), the
// client looks for the token until E2B can no longer be finishing that
// create, and only then sends the create again; a 429 or an answer that
// proves nothing was made is retried directly. A sandbox found after the
// caller's context ended comes back with a *CreateInterruptedError; a
// failed search gives a *CreateUnsettledError naming the token.
func (c *Client) CreateSandbox(ctx context.Context, req CreateSandboxRequest) (*Sandbox, error) {
	if _, taken := req.Metadata[IdempotencyMetadataKey]; taken {
		return nil, fmt.Errorf("create sandbox: metadata key %q is reserved for the client's own use", IdempotencyMetadataKey)
	}
	token, err := newCreateToken()
	if err != nil {
		return nil, err
	}
	body := wireNewSandbox{
		TemplateID: req.TemplateID, AutoPause: req.AutoPause, Secure: req.Secure,
		AllowInternetAccess: req.AllowInternetAccess, Network: fromNetwork(req.Network),
		Metadata: maps.Clone(req.Metadata), EnvVars: req.EnvVars,
		AutoPauseMemory: req.AutoPauseMemory, VolumeMounts: req.VolumeMounts, MCP: req.MCP,
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if len(req.IAMTokens) > 0 {
		body.IAM = &wireIAM{Tokens: req.IAMTokens}
	}
	if body.Metadata == nil {
		body.Metadata = map[string]string{}
	}
	body.Metadata[IdempotencyMetadataKey] = token
	if req.Timeout > 0 {
		body.Timeout = &req.Timeout
	}
	if req.AutoResume != nil {
		body.AutoResume = &wireAutoResume{Enabled: *req.AutoResume}
	}
	sb, err := c.createOnce(ctx, token, body)
	if sb != nil && !sb.partial {
		c.sandboxes.rememberSandbox(sb)
	}
	return sb, err
}

// createOnce sends the create and settles unknown outcomes by the token.
// Every attempt waits its turn within the team's create rate (createPacer);
// a refusal for the rate (429) made nothing and is sent again in a later
// turn until ctx ends, and a refusal at the concurrent-sandbox limit waits
// for a place (awaitPlace).
func (c *Client) createOnce(ctx context.Context, token string, body wireNewSandbox) (*Sandbox, error) {
	limit := limitWait{op: "create sandbox", slots: c.limits.slots}
	defer limit.done()
	var throttle createThrottle
	for attempt := 0; ; {
		paced, err := c.limits.pacer.wait(ctx, throttle.notBefore)
		if err != nil {
			return nil, throttle.ended(err)
		}
		freed := c.limits.slots.freedCount()
		sent := time.Now()
		sb, header, err := c.postSandbox(ctx, body)
		if err == nil {
			c.limits.pacer.admitted(sent, paced)
			c.limits.slots.startedOne(1)
			return sb, nil
		}
		if refusal, _, ok := sandboxLimitOf(err); ok {
			c.limits.pacer.admitted(sent, paced) // it passed E2B's rate limit
			if err := c.awaitPlace(ctx, &limit, freed, refusal); err != nil {
				return nil, err
			}
			continue
		}
		if e, ok := asAPIError(err); ok && e.StatusCode == http.StatusTooManyRequests {
			if err := throttle.refused(e, sent, header); err != nil {
				return nil, err
			}
			before := c.limits.pacer.Interval()
			c.limits.pacer.throttled(sent, paced, throttle.retryAfter)
			c.logPace(ctx, before)
			continue
		} else if ok {
			c.limits.pacer.admitted(sent, paced)
		}
		switch createOutcome(ctx, err) {
		case outcomeFailed:
			return nil, err
		case outcomeNothingMade:
		case outcomeUnknown, outcomeE2BFailed:
			found, lerr := c.settleCreate(ctx, token, sent, createOutcome(ctx, err) == outcomeE2BFailed)
			switch {
			case found != nil:
				return c.settledStart(ctx, found, err)
			case lerr != nil:
				return nil, &CreateUnsettledError{Token: token, Err: err, LookupErr: lerr}
			}
		}
		if ctx.Err() != nil || attempt >= c.retryMax {
			return nil, err
		}
		if err := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, err
		}
		attempt++
	}
}

// createThrottleBound ends the retries of a create that E2B keeps refusing
// for its rate when the caller's context has no deadline of its own.
const createThrottleBound = 10 * time.Minute

// createThrottle follows one create's refusals for E2B's rate: they are
// retried until the caller's context ends, not a number of times.
type createThrottle struct {
	first, notBefore time.Time
	retryAfter       time.Duration
	count            int
	last             *APIError
}

// refused records a refusal and sets when the create may go again.
func (t *createThrottle) refused(e *APIError, sent time.Time, header http.Header) error {
	if t.count == 0 {
		t.first = sent
	}
	t.count++
	t.last = e
	t.retryAfter, _ = parseRetryAfter(header.Get("Retry-After"), time.Now())
	t.notBefore = time.Time{}
	if t.retryAfter > time.Second { // E2B sends at least 1 however soon the next create may go
		t.notBefore = sent.Add(t.retryAfter)
	}
	if time.Since(t.first) > createThrottleBound {
		return t.ended(fmt.Errorf("still refused after %s", createThrottleBound))
	}
	return nil
}

// ended explains a create that stopped waiting for its turn (cause: the
// context's error).
func (t *createThrottle) ended(cause error) error {
	if t.count == 0 {
		return fmt.Errorf("create sandbox: waiting for a turn within E2B's create rate: %w", cause)
	}
	return fmt.Errorf("%w; E2B refused this create %d time(s) over %s for its rate limit, and it stopped waiting: %w",
		t.last, t.count, time.Since(t.first).Round(time.Second), cause)
}

// postSandbox sends one create through v2, or through v1 where the server
// lacks v2 or the sandbox asks for secure = false, which v2 cannot express
// (it always secures a sandbox).
func (c *Client) postSandbox(ctx context.Context, body wireNewSandbox) (*Sandbox, http.Header, error) {
	unsecured := body.Secure != nil && !*body.Secure
	if !unsecured && c.useV2(routeCreate) {
		v2 := body
		v2.Secure = nil
		sb, header, err := c.postSandboxTo(ctx, c.pathFor(routeCreate, "", true), v2)
		if !c.fallBackOnRouteMiss(routeCreate, err) {
			return sb, header, err
		}
	}
	sb, header, err := c.postSandboxTo(ctx, routeCreate.v1Path(""), body)
	if unsecured && isRouteMiss(err) {
		err = fmt.Errorf("%w (secure = false needs E2B's deprecated v1 create, POST /sandboxes, which this server "+
			"no longer serves; its v2 create always secures a sandbox)", err)
	}
	return sb, header, err
}

func (c *Client) postSandboxTo(ctx context.Context, path string, body wireNewSandbox) (*Sandbox, http.Header, error) {
	var w wireSandbox
	res, err := c.callAPI(ctx, apiCall{
		op: "create sandbox", subject: templateSubject(body.TemplateID), method: http.MethodPost, path: path,
		// The transport retries nothing: createOnce paces and retries refusals itself.
		class: retryNever, body: body, out: &w, ownPace: true,
	})
	if err != nil {
		return nil, res.header, err
	}
	return w.toSandbox(), res.header, nil
}

// createOutcomeKind says what a failed create attempt may have done.
type createOutcomeKind int

const (
	outcomeFailed      createOutcomeKind = iota // refused (4xx): nothing made, sending again cannot help
	outcomeNothingMade                          // the request never left: safe to send again
	outcomeE2BFailed                            // E2B's API itself answered 5xx: it is done with this create
	outcomeUnknown                              // no answer, or a gateway's: E2B may still be creating
)

func createOutcome(ctx context.Context, err error) createOutcomeKind {
	if ctx.Err() != nil {
		return outcomeUnknown
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return outcomeNothingMade
	}
	var te *transportError
	if errors.As(err, &te) {
		return outcomeUnknown
	}
	if e, ok := asAPIError(err); ok && e.StatusCode >= 500 {
		if e.shape == shapeE2B {
			return outcomeE2BFailed
		}
		return outcomeUnknown
	}
	return outcomeFailed
}

// settleCreate looks for the sandbox carrying token; see settle.
func (c *Client) settleCreate(ctx context.Context, token string, sent time.Time, e2bAnswered bool) (*Sandbox, error) {
	return settle(ctx, c, sent, e2bAnswered, func(ctx context.Context) (*Sandbox, error) {
		return c.findByCreateToken(ctx, token)
	}, nil)
}

// settle looks, with find, for what a create whose outcome is unknown made.
// With once it looks twice, a moment apart (E2B answered, or sending again
// is safe); otherwise it keeps looking until createSettleWindow after the
// create was sent, since E2B may still finish it. A search error for which
// final reports true settles the create at once. It returns nil, nil when
// the last search found nothing, and the search's error when it failed.
// Once ctx has ended it still looks, for up to lostCreateLookupTimeout: the
// object may exist anyway.
func settle[T any](ctx context.Context, c *Client, sent time.Time, once bool,
	find func(context.Context) (*T, error), final func(error) bool,
) (*T, error) {
	ctx, cancel, until := settleLookup(ctx, sent, once)
	defer cancel()
	for check := 0; ; check++ {
		found, err := find(ctx)
		if found != nil || (final != nil && final(err)) {
			return found, err
		}
		wait, more := c.settleWait(check, until)
		if !more {
			return nil, err
		}
		if serr := sleepCtx(ctx, wait); serr != nil {
			if err == nil {
				err = serr
			}
			return nil, err
		}
	}
}

// settledStart answers a create or fork whose answer (err) was lost and whose
// sandbox was found: it counts as started, and once ctx has ended it comes
// with a CreateInterruptedError (the sandbox exists all the same).
func (c *Client) settledStart(ctx context.Context, found *Sandbox, err error) (*Sandbox, error) {
	if ctx.Err() != nil {
		return found, &CreateInterruptedError{SandboxID: found.SandboxID, Err: err}
	}
	c.limits.slots.startedOne(1)
	return found, nil
}

// settleLookup prepares the searches for what a create (or a fork) whose
// outcome is unknown made: a context that, once ctx has ended, still allows
// lostCreateLookupTimeout (the object may exist anyway), and the time the
// searches end: createSettleWindow after the create was sent, since E2B may
// still finish it, or a moment from now with once.
func settleLookup(ctx context.Context, sent time.Time, once bool) (context.Context, context.CancelFunc, time.Time) {
	cancel := context.CancelFunc(func() {})
	if ctx.Err() != nil {
		limit := lostCreateLookupTimeout
		if end, ok := operationDeadline(ctx); ok {
			limit = max(min(limit, time.Until(end)), 0)
		}
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), limit)
	}
	until := sent.Add(createSettleWindow)
	if once {
		until = time.Now().Add(createRecheckDelay)
	}
	return ctx, cancel, until
}

// settleWait is the pause after search number check, and false when the next
// search would come after until (there is always a second one).
func (c *Client) settleWait(check int, until time.Time) (time.Duration, bool) {
	wait := backoff(createRecheckDelay, max(createRecheckDelay, c.cfg.RetryWaitMax), check, nil)
	return wait, !time.Now().Add(wait).After(until) || check == 0
}

// findByCreateToken returns the running or paused sandbox whose metadata
// carries token, or nil. A sandbox that is listed but cannot then be read is
// still returned, from its list entry and without its envd access token: it
// exists, is billed, and must not be lost.
func (c *Client) findByCreateToken(ctx context.Context, token string) (*Sandbox, error) {
	list, err := c.listSandboxes(ctx, ListSandboxesParams{
		States:   []string{SandboxStateRunning, SandboxStatePaused},
		Metadata: map[string]string{IdempotencyMetadataKey: token},
	}, false)
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
	return nil, nil
}

func newCreateToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("create sandbox: random create token: %w", err)
	}
	return hex.EncodeToString(b), nil
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
