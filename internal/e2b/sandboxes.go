package e2b

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// CreateSandboxRequest is the body of POST /sandboxes.
type CreateSandboxRequest struct {
	TemplateID                                         string
	Timeout                                            int32 // seconds; 0 = server default
	AutoPause, AutoResume, Secure, AllowInternetAccess *bool
	Network                                            *NetworkConfig
	Metadata, EnvVars                                  map[string]string

	// AutoPauseMemory false makes an auto-pause keep only the filesystem
	// (resume reboots); it needs AutoPause and excludes AutoResume.
	AutoPauseMemory *bool
	VolumeMounts    []VolumeMount
	MCP             json.RawMessage // a JSON object, passed through
	IAMTokens       map[string]IAMToken
}

// IdempotencyMetadataKey is the metadata key under which CreateSandbox
// stores its create token. The client removes it from the metadata it
// returns, and refuses it in the metadata it is given.
const IdempotencyMetadataKey = "e2b-terraform-create-token"

// userMetadata is metadata without the client's own key (nil stays nil).
func userMetadata(md map[string]string) map[string]string {
	if _, ok := md[IdempotencyMetadataKey]; !ok {
		return md
	}
	out := make(map[string]string, len(md)-1)
	for k, v := range md {
		if k != IdempotencyMetadataKey {
			out[k] = v
		}
	}
	return out
}

// Sandbox is returned by create, connect and fork.
type Sandbox struct {
	SandboxID, TemplateID, ClientID, Alias, EnvdVersion, EnvdAccessToken, TrafficAccessToken, Domain string

	// partial marks a sandbox known only from a list entry (no access token
	// or domain), which must not be remembered as the way to reach envd.
	partial bool
}

// Lifecycle says what happens when a sandbox's timeout ends.
type Lifecycle struct {
	AutoResume bool
	OnTimeout  string // "kill" | "pause"
}

// SandboxDetail is GET /sandboxes/{id}.
type SandboxDetail struct {
	SandboxID, TemplateID, ClientID, Alias, State, EnvdVersion, EnvdAccessToken, Domain string
	StartedAt, EndAt                                                                    time.Time
	CPUCount, MemoryMB, DiskSizeMB                                                      int32
	AllowInternetAccess                                                                 *bool
	Metadata                                                                            map[string]string
	Network                                                                             *NetworkConfig
	Lifecycle                                                                           *Lifecycle
	VolumeMounts                                                                        []VolumeMount
}

type wireAutoResume struct {
	Enabled bool `json:"enabled"`
}

type wireNewSandbox struct {
	TemplateID          string            `json:"templateID"`
	Timeout             *int32            `json:"timeout,omitempty"`
	AutoPause           *bool             `json:"autoPause,omitempty"`
	AutoResume          *wireAutoResume   `json:"autoResume,omitempty"`
	Secure              *bool             `json:"secure,omitempty"`
	AllowInternetAccess *bool             `json:"allow_internet_access,omitempty"`
	Network             *wireNetwork      `json:"network,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
	EnvVars             map[string]string `json:"envVars,omitempty"`
	AutoPauseMemory     *bool             `json:"autoPauseMemory,omitempty"`
	VolumeMounts        []VolumeMount     `json:"volumeMounts,omitempty"`
	MCP                 json.RawMessage   `json:"mcp,omitempty"`
	IAM                 *wireIAM          `json:"iam,omitempty"`
}

type wireSandbox struct {
	SandboxID          string  `json:"sandboxID"`
	TemplateID         string  `json:"templateID"`
	ClientID           string  `json:"clientID"`
	Alias              string  `json:"alias"`
	EnvdVersion        string  `json:"envdVersion"`
	EnvdAccessToken    string  `json:"envdAccessToken"`
	TrafficAccessToken *string `json:"trafficAccessToken"`
	Domain             *string `json:"domain"`
}

func (w *wireSandbox) toSandbox() *Sandbox {
	return &Sandbox{
		SandboxID: w.SandboxID, TemplateID: w.TemplateID, ClientID: w.ClientID, Alias: w.Alias,
		EnvdVersion: w.EnvdVersion, EnvdAccessToken: w.EnvdAccessToken,
		TrafficAccessToken: deref(w.TrafficAccessToken), Domain: deref(w.Domain),
	}
}

type wireLifecycle struct {
	AutoResume bool   `json:"autoResume"`
	OnTimeout  string `json:"onTimeout"`
}

// wireSandboxDetail is E2B's SandboxDetail: the fields of a ListedSandbox (the same required
// set) and what only a read of one sandbox tells.
type wireSandboxDetail struct {
	wireListedSandbox
	EnvdAccessToken     string         `json:"envdAccessToken"`
	Domain              *string        `json:"domain"`
	AllowInternetAccess *bool          `json:"allowInternetAccess"`
	Network             *wireNetwork   `json:"network"`
	Lifecycle           *wireLifecycle `json:"lifecycle"`
	VolumeMounts        []VolumeMount  `json:"volumeMounts"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// GetSandbox reads one sandbox (running or paused).
func (c *Client) GetSandbox(ctx context.Context, id string) (*SandboxDetail, error) {
	var w wireSandboxDetail
	_, err := c.callAPI(ctx, apiCall{
		op: "get sandbox", sandboxID: id, subject: id, method: http.MethodGet,
		path: "/sandboxes/" + pathSeg(id), class: retryIdempotent, out: &w,
	})
	if err != nil {
		c.sandboxes.observe(id, nil, err)
		return nil, err
	}
	d := &SandboxDetail{
		SandboxID: w.SandboxID, TemplateID: w.TemplateID, ClientID: w.ClientID, Alias: w.Alias,
		State: w.State, EnvdVersion: w.EnvdVersion, EnvdAccessToken: w.EnvdAccessToken, Domain: deref(w.Domain),
		StartedAt: w.StartedAt, EndAt: w.EndAt, CPUCount: w.CPUCount, MemoryMB: w.MemoryMB, DiskSizeMB: w.DiskSizeMB,
		AllowInternetAccess: w.AllowInternetAccess, Metadata: userMetadata(w.Metadata), Network: w.Network.toNetwork(),
		VolumeMounts: w.VolumeMounts,
	}
	if w.Lifecycle != nil {
		d.Lifecycle = &Lifecycle{AutoResume: w.Lifecycle.AutoResume, OnTimeout: w.Lifecycle.OnTimeout}
	}
	c.sandboxes.observe(id, d, nil)
	return d, nil
}

// KillSandbox kills a running sandbox or deletes a paused one. A sandbox
// that does not exist gives an error for which IsNotFound is true.
func (c *Client) KillSandbox(ctx context.Context, id string) error {
	stopped := c.limits.slots.stop()
	_, err := c.callAPI(ctx, apiCall{
		op: "kill sandbox", sandboxID: id, subject: id, method: http.MethodDelete,
		path: "/sandboxes/" + pathSeg(id), class: retryIdempotent,
	})
	stopped(err == nil)
	if err == nil || IsNotFound(err) {
		c.sandboxes.forget(id)
	}
	return err
}

// SetSandboxTimeout sets the sandbox's end to now + seconds (it may shorten).
// Re-sending it has the same effect, so it is retried like an idempotent call.
func (c *Client) SetSandboxTimeout(ctx context.Context, id string, seconds int32) error {
	_, err := c.callAPI(ctx, apiCall{
		op: "set sandbox timeout", sandboxID: id, subject: id, method: http.MethodPost,
		path: "/sandboxes/" + pathSeg(id) + "/timeout", class: retryIdempotent,
		body: map[string]int32{"timeout": seconds},
	})
	return err
}

// PauseSandbox pauses a running sandbox. A sandbox that is already paused
// counts as success: E2B answers 409 then, and a read confirms the state
// (409 also means "in a transition", which is returned as an error).
func (c *Client) PauseSandbox(ctx context.Context, id string) error {
	return c.pauseSandbox(ctx, id, struct{}{})
}

// PauseSandboxFilesystem pauses a sandbox keeping only its filesystem: no memory snapshot, so
// the resume reboots it (files stay, processes and open connections do not), and E2B's
// auto-resume refuses it.
func (c *Client) PauseSandboxFilesystem(ctx context.Context, id string) error {
	return c.pauseSandbox(ctx, id, struct {
		Memory bool `json:"memory"`
	}{false})
}

func (c *Client) pauseSandbox(ctx context.Context, id string, body any) error {
	stopped := c.limits.slots.stop()
	_, err := c.callAPI(ctx, apiCall{
		op: "pause sandbox", sandboxID: id, subject: id, method: http.MethodPost,
		path: "/sandboxes/" + pathSeg(id) + "/pause", class: retryIdempotent,
		body: body,
	})
	if err != nil && IsConflict(err) {
		if d, gerr := c.GetSandbox(ctx, id); gerr == nil && d.State == SandboxStatePaused {
			err = nil
		}
	}
	stopped(err == nil)
	if err == nil {
		c.sandboxes.markPaused(id)
	}
	return err
}

// ConnectSandbox resumes a paused sandbox (resumed = true, HTTP 201) or
// extends a running one's timeout (HTTP 200; never shortens it). If an
// earlier attempt of this call resumed the sandbox and its answer was lost,
// the retry reports resumed = false. A resume refused at the team's
// concurrent-sandbox limit waits for a place as a create does, then fails
// with a *SandboxLimitError.
func (c *Client) ConnectSandbox(ctx context.Context, id string, timeout int32) (*Sandbox, bool, error) {
	return c.ConnectSandboxWith(ctx, id, ConnectOptions{Timeout: timeout})
}

// ConnectOptions is how ConnectSandboxWith brings a sandbox back.
type ConnectOptions struct {
	Timeout int32 // seconds from now; 0 leaves a running sandbox's end alone
	// FromDisk resumes a paused sandbox from its disk only (E2B's memory=false): a cold boot
	// that leaves its files and none of its processes; the memory snapshot is ignored, not
	// deleted, and writes not flushed before the pause may be lost. It changes nothing for a
	// running sandbox or one paused without memory. Where E2B has the capability off it
	// refuses the call (IsDiskOnlyResumeOff), never falling back to a memory restore.
	FromDisk bool
}

// ConnectSandboxWith is ConnectSandbox with the resume's options. It goes
// through connect v2 (POST /v2/sandboxes/{id}/connect), or v1 where the
// server lacks v2. v2 takes a timeout of at least 1 s, so a Timeout of 0 is
// sent as 1, which, the end being only ever extended, leaves a running
// sandbox's end alone as v1's 0 does.
func (c *Client) ConnectSandboxWith(ctx context.Context, id string, opts ConnectOptions) (*Sandbox, bool, error) {
	body := struct {
		Timeout int32 `json:"timeout"`
		Memory  *bool `json:"memory,omitempty"`
	}{Timeout: opts.Timeout}
	if opts.FromDisk {
		body.Memory = new(false)
	}
	limit := limitWait{op: "resume sandbox", sandboxID: id, slots: c.limits.slots}
	defer limit.done()
	for {
		var w wireSandbox
		v2 := c.useV2(routeConnect)
		sent := body
		if v2 {
			sent.Timeout = max(sent.Timeout, 1)
		}
		freed := c.limits.slots.freedCount()
		res, err := c.callAPI(ctx, apiCall{
			op: "connect sandbox", sandboxID: id, subject: id, method: http.MethodPost,
			path: c.pathFor(routeConnect, id, v2), class: retryIdempotent,
			body: sent, out: &w,
		})
		if v2 && c.fallBackOnRouteMiss(routeConnect, err) {
			continue
		}
		if refusal, _, ok := sandboxLimitOf(err); ok {
			if err := c.awaitPlace(ctx, &limit, freed, refusal); err != nil {
				return nil, false, err
			}
			continue
		}
		if err != nil {
			c.sandboxes.observe(id, nil, err)
			return nil, false, err
		}
		sb := w.toSandbox()
		c.sandboxes.rememberSandbox(sb)
		if res.status == http.StatusCreated {
			c.limits.slots.startedOne(1)
		}
		return sb, res.status == http.StatusCreated, nil
	}
}

// forkResult is one fork's outcome: exactly one of Sandbox and Err is set.
type forkResult struct {
	Sandbox *Sandbox
	Err     *APIError
}

// ForkOptions is how a fork is made.
type ForkOptions struct {
	Timeout int32 // seconds each fork lives; 0 = E2B's default (300 on v2, 15 on v1)
	// FilesystemOnly forks the source's filesystem without its memory (E2B's v2 memory=false):
	// the forks cold-boot with the source's files and none of its processes or connections.
	// It needs fork v2: a server without it gives an error, never a fork with memory.
	FilesystemOnly bool
}

// forkRefusedAtLimit forks one sandbox and, while E2B refuses it at the concurrent-sandbox limit,
// waits for a place and forks again. It creates a sandbox, so it is not retried on 5xx or
// connection errors.
func (c *Client) forkRefusedAtLimit(ctx context.Context, id string, opts ForkOptions) ([]forkResult, error) {
	limit := limitWait{op: "fork sandbox", sandboxID: id, slots: c.limits.slots}
	defer limit.done()
	for {
		freed := c.limits.slots.freedCount()
		out, err := c.forkOnce(ctx, id, opts)
		refusal := forkLimitRefusal(out, err)
		if refusal == nil {
			return out, err
		}
		if err := c.awaitPlace(ctx, &limit, freed, refusal); err != nil {
			return nil, err
		}
	}
}

// forkLimitRefusal returns E2B's refusal when a fork made nothing because
// of the concurrent-sandbox limit: the whole request, or every fork.
func forkLimitRefusal(out []forkResult, err error) *APIError {
	if err != nil {
		refusal, _, _ := sandboxLimitOf(err)
		return refusal
	}
	var refusal *APIError
	for _, r := range out {
		if r.Sandbox != nil || r.Err == nil {
			return nil
		}
		if e, _, ok := sandboxLimitOf(r.Err); ok {
			refusal = e
		} else {
			return nil
		}
	}
	return refusal
}

// wireForkRequest is SandboxForkRequestV2 (and v1's SandboxForkRequest, without memory).
type wireForkRequest struct {
	Timeout *int32 `json:"timeout,omitempty"`
	Count   *int32 `json:"count,omitempty"`
	Memory  *bool  `json:"memory,omitempty"`
}

// forkOnce sends a fork of one sandbox through v2, or v1 where the server lacks v2. Both answer
// 201 with one entry per fork, a sandbox or an error; any other answer means no fork was attempted.
func (c *Client) forkOnce(ctx context.Context, id string, opts ForkOptions) ([]forkResult, error) {
	body := wireForkRequest{Count: new(int32(1))}
	if opts.Timeout > 0 {
		body.Timeout = &opts.Timeout
	}
	var w []struct {
		Sandbox *wireSandbox `json:"sandbox"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var err error
	v2 := c.useV2(routeFork)
	if v2 {
		sent := body
		if opts.FilesystemOnly {
			sent.Memory = new(false)
		}
		err = c.postFork(ctx, id, c.pathFor(routeFork, id, true), sent, &w)
		v2 = !c.fallBackOnRouteMiss(routeFork, err)
	}
	if !v2 {
		if opts.FilesystemOnly {
			return nil, fmt.Errorf("fork sandbox %q: a fork of the filesystem only needs E2B's fork v2 "+
				"(POST /v2/sandboxes/{id}/fork), which this server does not serve; nothing was forked", id)
		}
		err = c.postFork(ctx, id, routeFork.v1Path(id), body, &w)
	}
	if err != nil {
		return nil, err
	}
	out := make([]forkResult, 0, len(w))
	for _, r := range w {
		var fr forkResult
		if r.Sandbox != nil {
			fr.Sandbox = r.Sandbox.toSandbox()
			c.sandboxes.rememberSandbox(fr.Sandbox)
			c.limits.slots.startedOne(1)
		}
		if r.Error != nil {
			fr.Err = &APIError{Op: "fork sandbox", SandboxID: id, StatusCode: r.Error.Code, Message: r.Error.Message}
		}
		out = append(out, fr)
	}
	return out, nil
}

func (c *Client) postFork(ctx context.Context, id, path string, body wireForkRequest, out any) error {
	_, err := c.callAPI(ctx, apiCall{
		op: "fork sandbox", sandboxID: id, subject: id, method: http.MethodPost,
		path: path, class: retryRateLimited, body: body, out: out,
	})
	return err
}
