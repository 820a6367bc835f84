package e2b

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// TemplateRequest asks for a new build (POST /v3/templates). A name that
// exists already gets a new build of the same template.
type TemplateRequest struct {
	Name     string   `json:"name,omitempty"` // "name" or "name:tag"
	Tags     []string `json:"tags,omitempty"`
	CPUCount int32    `json:"cpuCount,omitempty"`
	MemoryMB int32    `json:"memoryMB,omitempty"`
	// MinFreeDiskMB is the free space, in MiB, the build leaves on the template's filesystem after
	// its steps (E2B grows it, best effort, never shrinks it); nil is the team's default, 0 asks for
	// no growth. Above the team's allowance E2B refuses the request (400).
	MinFreeDiskMB *int32 `json:"minFreeDiskMb,omitempty"`
}

// TemplateRequested is E2B's answer: the template and the build to start.
type TemplateRequested struct {
	TemplateID string   `json:"templateID"`
	BuildID    string   `json:"buildID"`
	Public     bool     `json:"public"`
	Names      []string `json:"names"`
	Tags       []string `json:"tags"`
	Aliases    []string `json:"aliases"`
}

// RequestTemplateBuild creates the template (or finds it by name) and a build
// record waiting to be started. It is not retried after a lost answer: the
// caller asks again with the same name, which lands in the same template.
func (c *Client) RequestTemplateBuild(ctx context.Context, req TemplateRequest) (*TemplateRequested, error) {
	var out TemplateRequested
	_, err := c.callAPI(ctx, apiCall{
		op: "request template build " + strconv.Quote(req.Name), method: http.MethodPost, path: "/v3/templates",
		body: req, class: retryRateLimited, out: &out,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// TemplateFileUpload says whether E2B has the files of a hash already, and
// if not where to upload them.
type TemplateFileUpload struct {
	Present bool              `json:"present"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// TemplateFileUploadLink asks for the upload link of a COPY step's files.
func (c *Client) TemplateFileUploadLink(ctx context.Context, templateID, filesHash string) (*TemplateFileUpload, error) {
	var out TemplateFileUpload
	_, err := c.callAPI(ctx, apiCall{
		op: "get template file upload link", subject: templateSubject(templateID), method: http.MethodGet,
		path:  "/templates/" + pathSeg(templateID) + "/files/" + pathSeg(filesHash),
		class: retryIdempotent, out: &out,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// TemplateStep is one build step as E2B receives it.
type TemplateStep struct {
	Type      string   `json:"type"`
	Args      []string `json:"args"`
	FilesHash string   `json:"filesHash,omitempty"`
	Force     bool     `json:"force"`
}

// RegistryAuth holds the credentials of a private image registry; exactly
// one of its forms is used, by Type ("registry", "aws" or "gcp").
type RegistryAuth struct {
	Type               string `json:"type"`
	Username           string `json:"username,omitempty"`
	Password           string `json:"password,omitempty"`
	AWSAccessKeyID     string `json:"awsAccessKeyId,omitempty"`
	AWSSecretAccessKey string `json:"awsSecretAccessKey,omitempty"`
	AWSRegion          string `json:"awsRegion,omitempty"`
	ServiceAccountJSON string `json:"serviceAccountJson,omitempty"`
}

// TemplateBuildStart is the body of POST /v2/templates/{id}/builds/{buildID}.
type TemplateBuildStart struct {
	FromImage         string         `json:"fromImage,omitempty"`
	FromTemplate      string         `json:"fromTemplate,omitempty"`
	FromImageRegistry *RegistryAuth  `json:"fromImageRegistry,omitempty"`
	Force             bool           `json:"force"`
	Steps             []TemplateStep `json:"steps"`
	StartCmd          string         `json:"startCmd,omitempty"`
	ReadyCmd          string         `json:"readyCmd,omitempty"`
}

// StartTemplateBuild starts a requested build. Error answers are retried (a
// 5xx started nothing); a lost connection is not, and BuildTemplate settles
// it by reading the build's status.
func (c *Client) StartTemplateBuild(ctx context.Context, templateID, buildID string, start TemplateBuildStart) error {
	if start.Steps == nil {
		start.Steps = []TemplateStep{}
	}
	_, err := c.callAPI(ctx, apiCall{
		op: "start template build", subject: templateSubject(templateID), method: http.MethodPost,
		path: "/v2/templates/" + pathSeg(templateID) + "/builds/" + pathSeg(buildID),
		body: start, class: retryRejected,
	})
	return err
}

// BuildLogEntry is one line of a build's log.
type BuildLogEntry struct {
	Timestamp time.Time `json:"timestamp"`
	Level     string    `json:"level"`
	Message   string    `json:"message"`
	Step      string    `json:"step,omitempty"`
}

// BuildStatusReason explains a failed build: the message, the failing step
// ("base", "finalize" or a step number) and the log lines around it.
type BuildStatusReason struct {
	Message    string          `json:"message"`
	Step       string          `json:"step,omitempty"`
	LogEntries []BuildLogEntry `json:"logEntries,omitempty"`
}

// TemplateBuildStatus is GET .../builds/{buildID}/status.
type TemplateBuildStatus struct {
	TemplateID string             `json:"templateID"`
	BuildID    string             `json:"buildID"`
	Status     string             `json:"status"` // building, waiting, ready, error
	LogEntries []BuildLogEntry    `json:"logEntries"`
	Reason     *BuildStatusReason `json:"reason,omitempty"`
}

// Build statuses.
const (
	BuildStatusBuilding = "building"
	BuildStatusWaiting  = "waiting"
	BuildStatusReady    = "ready"
	BuildStatusError    = "error"
)

// Finished reports a build that will not change any more.
func (s *TemplateBuildStatus) Finished() bool {
	return s.Status == BuildStatusReady || s.Status == BuildStatusError
}

// StatusQuery selects log entries of a status answer.
type StatusQuery struct {
	LogsOffset int32  // entries already seen
	Limit      int32  // 0: E2B's default (100)
	Level      string // minimum level: debug, info, warn, error
}

// GetTemplateBuildStatus reads a build's status with the log entries from an offset.
func (c *Client) GetTemplateBuildStatus(ctx context.Context, templateID, buildID string, q StatusQuery) (*TemplateBuildStatus, error) {
	v := url.Values{}
	if q.LogsOffset > 0 {
		v.Set("logsOffset", strconv.Itoa(int(q.LogsOffset)))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(int(q.Limit)))
	}
	if q.Level != "" {
		v.Set("level", q.Level)
	}
	var out TemplateBuildStatus
	_, err := c.callAPI(ctx, apiCall{
		op: "get template build status", subject: strings.ToLower(buildID), method: http.MethodGet,
		path:  "/templates/" + pathSeg(templateID) + "/builds/" + pathSeg(buildID) + "/status",
		query: v, class: retryIdempotent, out: &out,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteTemplate deletes a template (by ID or name) with all its builds.
func (c *Client) DeleteTemplate(ctx context.Context, idOrName string) error {
	return c.deleteTemplate(ctx, "delete template "+strconv.Quote(idOrName), idOrName)
}

// SetTemplatePublic makes a template public or private; it returns its names.
func (c *Client) SetTemplatePublic(ctx context.Context, idOrName string, public bool) ([]string, error) {
	var out struct {
		Names []string `json:"names"`
	}
	_, err := c.callAPI(ctx, apiCall{
		op: "update template " + strconv.Quote(idOrName), subject: templateSubject(idOrName), method: http.MethodPatch,
		path: "/v2/templates/" + pathSeg(idOrName), body: map[string]bool{"public": public},
		class: retryIdempotent, out: &out,
	})
	return out.Names, err
}

// TemplateTag is one tag of a template and the build it points at.
type TemplateTag struct {
	Tag       string    `json:"tag"`
	BuildID   string    `json:"buildID"`
	CreatedAt time.Time `json:"createdAt"`
}

// AssignTemplateTags points tags at the build that target ("name:tag" or
// "name:<buildID>") names. Assigning again has the same effect, so it is
// retried like a read.
func (c *Client) AssignTemplateTags(ctx context.Context, target string, tags []string) (buildID string, assigned []string, err error) {
	var out struct {
		Tags    []string `json:"tags"`
		BuildID string   `json:"buildID"`
	}
	_, err = c.callAPI(ctx, apiCall{
		op: "assign template tags to " + strconv.Quote(target), subject: templateSubject(target), method: http.MethodPost, path: "/templates/tags",
		body: map[string]any{"target": target, "tags": tags}, class: retryIdempotent, out: &out,
	})
	return out.BuildID, out.Tags, err
}

// RemoveTemplateTags removes tags from a template (by name, without a tag).
func (c *Client) RemoveTemplateTags(ctx context.Context, name string, tags []string) error {
	_, err := c.callAPI(ctx, apiCall{
		op: "remove template tags from " + strconv.Quote(name), subject: templateSubject(name), method: http.MethodDelete, path: "/templates/tags",
		body: map[string]any{"name": name, "tags": tags}, class: retryIdempotent,
	})
	return err
}

// ListTemplateTags returns every tag of a template (by ID or name).
func (c *Client) ListTemplateTags(ctx context.Context, idOrName string) ([]TemplateTag, error) {
	var out []TemplateTag
	_, err := c.callAPI(ctx, apiCall{
		op: "list template tags of " + strconv.Quote(idOrName), subject: templateSubject(idOrName), method: http.MethodGet,
		path: "/templates/" + pathSeg(idOrName) + "/tags", class: retryIdempotent, out: &out,
	})
	return out, err
}

// TemplateExists reports whether a template name is taken, as the SDK's
// Template.exists does: a name of another team (403) exists too.
func (c *Client) TemplateExists(ctx context.Context, name string) (bool, error) {
	_, _, err := c.ResolveTemplateAlias(ctx, name)
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err):
		return false, nil
	case IsForbidden(err):
		return true, nil
	}
	return false, err
}
