package e2b

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Template is one entry of GET /v2/templates.
type Template struct {
	TemplateID, BuildID, EnvdVersion, BuildStatus string
	CPUCount, MemoryMB, DiskSizeMB                int32
	Public                                        bool
	CreatedAt, UpdatedAt                          time.Time
	LastSpawnedAt                                 *time.Time
	SpawnCount                                    int64
	BuildCount                                    int32
	Aliases, Names                                []string
}

// TemplateBuild is one build of a template.
type TemplateBuild struct {
	BuildID, Status, EnvdVersion string
	CreatedAt, UpdatedAt         time.Time
	FinishedAt                   *time.Time
	CPUCount, MemoryMB           int32
	DiskSizeMB                   *int32
}

// TemplateWithBuilds is GET /templates/{id} with every page of builds.
type TemplateWithBuilds struct {
	TemplateID           string
	Public               bool
	Aliases, Names       []string
	CreatedAt, UpdatedAt time.Time
	LastSpawnedAt        *time.Time
	SpawnCount           int64
	Builds               []TemplateBuild
}

type wireTemplate struct {
	TemplateID    string     `json:"templateID"`
	BuildID       string     `json:"buildID"`
	EnvdVersion   string     `json:"envdVersion"`
	BuildStatus   string     `json:"buildStatus"`
	CPUCount      int32      `json:"cpuCount"`
	MemoryMB      int32      `json:"memoryMB"`
	DiskSizeMB    int32      `json:"diskSizeMB"`
	Public        bool       `json:"public"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	LastSpawnedAt *time.Time `json:"lastSpawnedAt"`
	SpawnCount    int64      `json:"spawnCount"`
	BuildCount    int32      `json:"buildCount"`
	Aliases       []string   `json:"aliases"`
	Names         []string   `json:"names"`
}

type wireTemplateBuild struct {
	BuildID     string     `json:"buildID"`
	Status      string     `json:"status"`
	EnvdVersion string     `json:"envdVersion"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	FinishedAt  *time.Time `json:"finishedAt"`
	CPUCount    int32      `json:"cpuCount"`
	MemoryMB    int32      `json:"memoryMB"`
	DiskSizeMB  *int32     `json:"diskSizeMB"`
}

type wireTemplateWithBuilds struct {
	TemplateID    string              `json:"templateID"`
	Public        bool                `json:"public"`
	Aliases       []string            `json:"aliases"`
	Names         []string            `json:"names"`
	CreatedAt     time.Time           `json:"createdAt"`
	UpdatedAt     time.Time           `json:"updatedAt"`
	LastSpawnedAt *time.Time          `json:"lastSpawnedAt"`
	SpawnCount    int64               `json:"spawnCount"`
	Builds        []wireTemplateBuild `json:"builds"`
}

// ListTemplates returns every page of the team's templates (public ones such
// as "base" are usable but not listed).
func (c *Client) ListTemplates(ctx context.Context) ([]Template, error) {
	var all []Template
	err := collectPages("list templates", func(token string) (string, error) {
		q := pageQuery(0, token)
		var w []wireTemplate
		res, err := c.callAPI(ctx, apiCall{
			op: "list templates", method: http.MethodGet, path: "/v2/templates",
			query: q, class: retryIdempotent, out: &w,
		})
		if err != nil {
			return "", err
		}
		for _, t := range w {
			all = append(all, Template(t))
		}
		return res.header.Get("X-Next-Token"), nil
	})
	return all, err
}

// GetTemplate returns a template (by ID or name) with all of its builds.
func (c *Client) GetTemplate(ctx context.Context, idOrName string) (*TemplateWithBuilds, error) {
	var out *TemplateWithBuilds
	op := "get template " + `"` + idOrName + `"`
	err := collectPages(op, func(token string) (string, error) {
		q := pageQuery(0, token)
		var w wireTemplateWithBuilds
		res, err := c.callAPI(ctx, apiCall{
			op: op, subject: templateSubject(idOrName), method: http.MethodGet, path: "/templates/" + pathSeg(idOrName),
			query: q, class: retryIdempotent, out: &w,
		})
		if err != nil {
			return "", err
		}
		if out == nil {
			out = &TemplateWithBuilds{
				TemplateID: w.TemplateID, Public: w.Public, Aliases: w.Aliases, Names: w.Names,
				CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, LastSpawnedAt: w.LastSpawnedAt, SpawnCount: w.SpawnCount,
			}
		}
		for _, b := range w.Builds {
			out.Builds = append(out.Builds, TemplateBuild(b))
		}
		return res.header.Get("X-Next-Token"), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ResolveTemplateAlias looks a template up by alias.
func (c *Client) ResolveTemplateAlias(ctx context.Context, alias string) (string, bool, error) {
	var w struct {
		TemplateID string `json:"templateID"`
		Public     bool   `json:"public"`
	}
	_, err := c.callAPI(ctx, apiCall{
		op: "resolve template alias " + `"` + alias + `"`, subject: templateSubject(alias), method: http.MethodGet,
		path: "/templates/aliases/" + pathSeg(alias), class: retryIdempotent, out: &w,
	})
	if err != nil {
		return "", false, err
	}
	return w.TemplateID, w.Public, nil
}

// Health checks the control plane (GET /health, no API key needed).
func (c *Client) Health(ctx context.Context) error {
	ci := &callInfo{op: "api health", class: retryIdempotent, timeout: timeoutWhole}
	req, err := newGet(withCall(ctx, ci), c.apiURL.String()+"/health")
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.control.Do(req)
	if err != nil {
		return requestError(ctx, "api health", "", err)
	}
	defer drainClose(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return controlError("api health", "", "", resp)
	}
	return nil
}

// templateSubject is the part of a template reference ([namespace/]alias[:tag]
// or ID) that E2B's "not found" message names, as E2B cleans it.
func templateSubject(ref string) string {
	ref, _, _ = strings.Cut(ref, ":")
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		ref = ref[i+1:]
	}
	return strings.ToLower(strings.TrimSpace(ref))
}
