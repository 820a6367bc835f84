package e2b

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
)

// TemplateBuildSpec is everything one build of a template needs.
type TemplateBuildSpec struct {
	Name string // "name" or "name:tag"; an existing name gets a new build
	// New asks for a new template: the build is requested with
	// RequestNewTemplate, which settles a lost answer and refuses a template
	// another request made.
	New      bool
	Tags     []string
	CPUCount int32
	MemoryMB int32
	// MinFreeDiskMB is TemplateRequest.MinFreeDiskMB.
	MinFreeDiskMB *int32

	// Exactly one base: an image (optionally from a private registry) or a template.
	FromImage         string
	FromImageRegistry *RegistryAuth
	FromTemplate      string

	Steps    []BuildStep
	StartCmd string
	ReadyCmd string
	Force    bool // build every step again, ignoring E2B's cache

	Context buildcontext.Context // where COPY steps take their files from
}

// BuildOptions tunes BuildTemplate.
type BuildOptions struct {
	// OnRequested is called once E2B has created the build, before any
	// upload: the caller can record the template and build IDs.
	OnRequested func(TemplateRequested)
	// OnLog receives every build log entry as it arrives, in order.
	OnLog func(BuildLogEntry)
	// OnUpload is called per COPY step: whether its files were uploaded.
	OnUpload func(step int, src string, uploaded bool)
	// PollInterval is the first wait between status polls (default 500ms); it
	// doubles while nothing new arrives, up to MaxPollInterval (default 5s).
	PollInterval, MaxPollInterval time.Duration
}

// BuildResult is a finished, successful build.
type BuildResult struct {
	TemplateRequested
	Status   *TemplateBuildStatus
	Uploaded int // COPY file sets uploaded
	Cached   int // COPY file sets E2B had already
}

// BuildFailedError is a build that ended in status "error".
type BuildFailedError struct {
	TemplateID, BuildID string
	Message             string
	Step                string          // "base", "finalize" or a step number (1 = first step)
	StepText            string          // the failing step, as a Dockerfile line reads
	LogTail             []BuildLogEntry // the last log lines
}

func (e *BuildFailedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "build %s of template %s failed", e.BuildID, e.TemplateID)
	switch {
	case e.StepText != "":
		fmt.Fprintf(&b, " in step %s (%s)", e.Step, e.StepText)
	case e.Step != "":
		fmt.Fprintf(&b, " in step %q", e.Step)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.LogTail) > 0 {
		b.WriteString("\nlast log lines:")
		for _, l := range e.LogTail {
			b.WriteString("\n  " + l.Message)
		}
	}
	return b.String()
}

// logTailLines is how many log lines a BuildFailedError keeps.
const logTailLines = 20

// CopyInputs identifies what the files hashes of steps depend on besides
// the files themselves: the context (its path, ignore patterns and
// NormalizeModes) and each COPY step's source, destination and
// ResolveSymlinks. Equal CopyInputs read the same files the same way.
func CopyInputs(tc buildcontext.Context, steps []BuildStep) string {
	parts := []any{tc.Dir, tc.Ignore, tc.NormalizeModes}
	for _, s := range steps {
		if s.Type == StepCopy && len(s.Args) >= 2 {
			parts = append(parts, []any{s.Args[0], s.Args[1], s.ResolveSymlinks})
		}
	}
	b, _ := json.Marshal(parts) // plain values always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CopyFilesHashes fills FilesHash of every COPY step from the context (the
// SDK's hash) and returns the hashes in step order.
func CopyFilesHashes(tc buildcontext.Context, steps []BuildStep) ([]string, error) {
	var out []string
	for i := range steps {
		s := &steps[i]
		if s.Type != StepCopy {
			continue
		}
		if len(s.Args) < 2 {
			return nil, fmt.Errorf("step %d: COPY needs a source and a destination", i+1)
		}
		h, err := tc.HashCopy(s.Args[0], s.Args[1], s.ResolveSymlinks)
		if err != nil {
			return nil, fmt.Errorf("step %d (COPY %s): %w", i+1, s.Args[0], err)
		}
		s.FilesHash = h
		out = append(out, h)
	}
	return out, nil
}

// ContextDigest summarises the files hashes of all COPY steps in one value,
// empty when there is no COPY step.
func ContextDigest(hashes []string) string {
	if len(hashes) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(hashes, "\n")))
	return hex.EncodeToString(sum[:])
}

// BuildTemplate runs a whole build: it hashes the COPY steps' files (before
// anything is created, so a bad context fails early), requests the build,
// uploads only the file sets E2B does not have, starts the build and follows
// it, handing log entries to OnLog as they arrive. Canceling ctx stops the
// work here; a build already started keeps running at E2B, and
// ContinueTemplateBuild carries on one that was not.
func (c *Client) BuildTemplate(ctx context.Context, spec TemplateBuildSpec, opts BuildOptions) (*BuildResult, error) {
	steps := append([]BuildStep(nil), spec.Steps...)
	if _, err := CopyFilesHashes(spec.Context, steps); err != nil {
		return nil, err
	}
	request := c.RequestTemplateBuild
	if spec.New {
		request = c.RequestNewTemplate
	}
	req, err := request(ctx, TemplateRequest{Name: spec.Name, Tags: spec.Tags, CPUCount: spec.CPUCount, MemoryMB: spec.MemoryMB,
		MinFreeDiskMB: spec.MinFreeDiskMB})
	if err != nil {
		return nil, err
	}
	if opts.OnRequested != nil {
		opts.OnRequested(*req)
	}
	res := &BuildResult{TemplateRequested: *req}
	return res, c.runBuild(ctx, res, spec, steps, opts, true)
}

// ContinueTemplateBuild carries on a build of spec that an earlier run
// requested and stopped following: a build still waiting gets its files and
// is started; one under way (or finished) is followed to its end. spec must
// be the one the build was requested for.
func (c *Client) ContinueTemplateBuild(ctx context.Context, templateID, buildID string, spec TemplateBuildSpec, opts BuildOptions) (*BuildResult, error) {
	steps := append([]BuildStep(nil), spec.Steps...)
	if _, err := CopyFilesHashes(spec.Context, steps); err != nil {
		return nil, err
	}
	st, err := c.GetTemplateBuildStatus(ctx, templateID, buildID, StatusQuery{Limit: 1})
	if err != nil {
		return nil, err
	}
	res := &BuildResult{TemplateRequested: TemplateRequested{TemplateID: templateID, BuildID: buildID}}
	return res, c.runBuild(ctx, res, spec, steps, opts, st.Status == BuildStatusWaiting)
}

// runBuild uploads the COPY steps' files and starts the requested build (when
// start is set), then follows it to its end; it fills res.
func (c *Client) runBuild(ctx context.Context, res *BuildResult, spec TemplateBuildSpec, steps []BuildStep, opts BuildOptions, start bool) error {
	startBody := TemplateBuildStart{
		FromImage: spec.FromImage, FromImageRegistry: spec.FromImageRegistry, FromTemplate: spec.FromTemplate,
		Force: spec.Force, StartCmd: spec.StartCmd, ReadyCmd: spec.ReadyCmd,
		Steps: make([]TemplateStep, len(steps)),
	}
	for i, s := range steps {
		startBody.Steps[i] = s.TemplateStep
		if startBody.Steps[i].Args == nil {
			startBody.Steps[i].Args = []string{}
		}
		startBody.Steps[i].Force = s.Force || s.ForceUpload
	}
	if start {
		if err := c.uploadAll(ctx, res, spec.Context, steps, opts); err != nil {
			return err
		}
		if err := c.startBuildOnce(ctx, res.TemplateID, res.BuildID, startBody); err != nil {
			return err
		}
	}
	st, err := c.FollowTemplateBuild(ctx, res.TemplateID, res.BuildID, FollowOptions{
		OnLog: opts.OnLog, PollInterval: opts.PollInterval, MaxPollInterval: opts.MaxPollInterval,
	})
	res.Status = st
	if err != nil {
		return err
	}
	if st.Status == BuildStatusError {
		return buildFailure(st, startBody.Steps)
	}
	return nil
}

// uploadAll uploads the file sets of the COPY steps that E2B does not have.
func (c *Client) uploadAll(ctx context.Context, res *BuildResult, tc buildcontext.Context, steps []BuildStep, opts BuildOptions) error {
	done := map[string]bool{}
	for i, s := range steps {
		if s.Type != StepCopy || (done[s.FilesHash] && !s.ForceUpload) {
			continue
		}
		uploaded, err := c.uploadCopyFiles(ctx, res.TemplateID, tc, s)
		if err != nil {
			return fmt.Errorf("step %d (COPY %s): %w", i+1, s.Args[0], err)
		}
		done[s.FilesHash] = true
		if uploaded {
			res.Uploaded++
		} else {
			res.Cached++
		}
		if opts.OnUpload != nil {
			opts.OnUpload(i+1, s.Args[0], uploaded)
		}
	}
	return nil
}

// startBuildOnce starts the build. A start that failed is settled by the
// build's status: a build no longer waiting was started by an attempt whose
// answer was lost (or turned into a 5xx by a gateway, so that the retry was
// refused as already started); a waiting build after a lost answer is
// started again, and any other failure stands.
func (c *Client) startBuildOnce(ctx context.Context, templateID, buildID string, start TemplateBuildStart) error {
	err := c.StartTemplateBuild(ctx, templateID, buildID, start)
	if err == nil {
		return nil
	}
	st, serr := c.GetTemplateBuildStatus(ctx, templateID, buildID, StatusQuery{Limit: 1})
	if serr != nil {
		return fmt.Errorf("%w (and its status could not be read: %v)", err, serr)
	}
	if st.Status != BuildStatusWaiting {
		return nil
	}
	var te *transportError
	if !errors.As(err, &te) {
		return err
	}
	return c.StartTemplateBuild(ctx, templateID, buildID, start)
}

func buildFailure(st *TemplateBuildStatus, steps []TemplateStep) *BuildFailedError {
	e := &BuildFailedError{TemplateID: st.TemplateID, BuildID: st.BuildID, Message: "unknown error"}
	if st.Reason != nil {
		e.Message, e.Step = st.Reason.Message, st.Reason.Step
		e.LogTail = tail(st.Reason.LogEntries, logTailLines)
	}
	if n, err := strconv.Atoi(e.Step); err == nil && n >= 1 && n <= len(steps) {
		e.StepText = steps[n-1].Describe()
	}
	return e
}

func tail(l []BuildLogEntry, n int) []BuildLogEntry {
	if len(l) > n {
		return l[len(l)-n:]
	}
	return l
}

// uploadCopyFiles uploads a COPY step's archive unless E2B has it; it
// reports whether it uploaded.
func (c *Client) uploadCopyFiles(ctx context.Context, templateID string, tc buildcontext.Context, s BuildStep) (bool, error) {
	link, err := c.TemplateFileUploadLink(ctx, templateID, s.FilesHash)
	if err != nil {
		return false, err
	}
	if link.URL == "" || (link.Present && !s.ForceUpload) {
		return false, nil
	}
	// Spooled to a temporary file, as the SDK does: memory stays flat, the
	// upload has an exact Content-Length, and a retry sends the same bytes.
	spool, err := os.CreateTemp("", "e2b-template-*.tar.gz")
	if err != nil {
		return false, err
	}
	defer func() {
		_ = spool.Close()
		_ = os.Remove(spool.Name())
	}()
	if err := tc.WriteCopyArchive(spool, s.Args[0], s.ResolveSymlinks); err != nil {
		return false, err
	}
	size, err := spool.Seek(0, io.SeekCurrent)
	if err != nil {
		return false, err
	}
	return true, c.putArchive(ctx, link, spool, size)
}

// putArchive sends the archive to the upload URL, again from the start after
// a lost connection, a 429 or a 5xx: the same bytes to the same URL. The API
// key is never sent there (the URL may point at a storage service).
func (c *Client) putArchive(ctx context.Context, link *TemplateFileUpload, f *os.File, size int64) error {
	const op = "upload template files"
	for attempt := 0; ; attempt++ {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		err := c.putOnce(ctx, op, link, io.NopCloser(f), size)
		if err == nil || !uploadRetryable(err) || attempt >= c.retryMax || ctx.Err() != nil {
			return err
		}
		if err := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return err
		}
	}
}

func (c *Client) putOnce(ctx context.Context, op string, link *TemplateFileUpload, body io.ReadCloser, size int64) error {
	ci := &callInfo{op: op, class: retryNever, timeout: timeoutNone}
	req, err := http.NewRequestWithContext(withCall(ctx, ci), http.MethodPut, link.URL, body)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	// Every header the link names is sent (a signed storage upload is
	// refused without them), but the length is the archive's own, and a
	// Host entry sets the request's host (Go ignores Host in Header).
	for k, v := range link.Headers {
		switch {
		case strings.EqualFold(k, "Content-Length"):
		case strings.EqualFold(k, "Host"):
			req.Host = v
		default:
			req.Header.Set(k, v)
		}
	}
	req.ContentLength = size
	req.Header.Set("User-Agent", c.userAgent)
	// The plain client: retryablehttp would read the whole body into memory.
	resp, err := c.control.HTTPClient.Do(req)
	if err != nil {
		return requestError(ctx, op, "", err)
	}
	defer drainClose(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return controlError(op, "", "", resp) // a storage service's answer: never "not found"
	}
	return nil
}

// FollowOptions tunes FollowTemplateBuild.
type FollowOptions struct {
	OnLog                         func(BuildLogEntry)
	PollInterval, MaxPollInterval time.Duration
	LogsOffset                    int32 // entries already seen
}

// statusPageSize is the most log entries one status answer carries.
const statusPageSize = 100

// FollowTemplateBuild polls a build's status until it finishes, handing new
// log entries to OnLog in order. It waits longer between polls while nothing
// new arrives and reads again at once while full pages of log come back.
// After the build finished it reads on until no new entry comes. Canceling ctx stops
// following (the build itself goes on).
func (c *Client) FollowTemplateBuild(ctx context.Context, templateID, buildID string, o FollowOptions) (*TemplateBuildStatus, error) {
	lo, hi := o.PollInterval, o.MaxPollInterval
	if lo <= 0 {
		lo = 500 * time.Millisecond
	}
	if hi <= 0 {
		hi = 5 * time.Second
	}
	hi = max(hi, lo)
	offset, wait := o.LogsOffset, lo
	for {
		st, err := c.GetTemplateBuildStatus(ctx, templateID, buildID, StatusQuery{LogsOffset: offset})
		if err != nil {
			return nil, err
		}
		offset += int32(len(st.LogEntries))
		if o.OnLog != nil {
			for _, l := range st.LogEntries {
				o.OnLog(l)
			}
		}
		if st.Finished() {
			// As the SDK does: read on until a page comes back empty, since
			// log entries may land after the status changed.
			if len(st.LogEntries) == 0 {
				return st, nil
			}
			continue
		}
		if len(st.LogEntries) >= statusPageSize {
			continue
		}
		if len(st.LogEntries) > 0 {
			wait = lo
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, fmt.Errorf("follow build %s of template %s: %w", buildID, templateID, err)
		}
		wait = min(2*wait, hi)
	}
}
