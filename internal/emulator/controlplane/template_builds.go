package controlplane

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

type templateBuildRequestJSON struct {
	Name     *string  `json:"name"`
	Alias    *string  `json:"alias"`
	Tags     []string `json:"tags"`
	CPUCount *int32   `json:"cpuCount"`
	MemoryMB *int32   `json:"memoryMB"`
	// MinFreeDiskMB is the free space the build is to leave; E2B refuses more than the team's
	// allowance, which the emulator takes to be the free space of its data dir.
	MinFreeDiskMB *int32 `json:"minFreeDiskMb"`
}

type templateRequestResponseJSON struct {
	TemplateID string   `json:"templateID"`
	BuildID    string   `json:"buildID"`
	Public     bool     `json:"public"`
	Names      []string `json:"names"`
	Tags       []string `json:"tags"`
	Aliases    []string `json:"aliases"`
}

// handleRequestBuild answers POST /v3/templates: it creates the template
// (or finds it by name) and registers a waiting build carrying the tags.
func (s *API) handleRequestBuild(w http.ResponseWriter, r *http.Request) {
	var req templateBuildRequestJSON
	if !decodeBody(w, r, &req) {
		return
	}
	raw := ""
	switch {
	case req.Name != nil:
		raw = *req.Name
	case req.Alias != nil:
		raw = *req.Alias
	}
	if raw == "" {
		writeError(w, http.StatusBadRequest, "Template name is required")
		return
	}
	name, err := parseTemplateName(raw)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid template name: %v", err)
		return
	}
	if err := namespaceError(name); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	wantTags := append([]string(nil), req.Tags...)
	if name.tag != "" {
		wantTags = append([]string{name.tag}, wantTags...)
	}
	tags, err := validateTags(wantTags)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid tag: %v", err)
		return
	}
	if len(tags) == 0 {
		tags = []string{defaultTag}
	}
	if msg := resourceLimitError(req.CPUCount, req.MemoryMB); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	if msg := s.freeDiskError(req.MinFreeDiskMB); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}

	buildID := ids.UUID()
	t, err := s.opts.Store.RequestBuild(name.alias, ids.New("", 20), buildID, req.CPUCount, req.MemoryMB, tags, time.Now().UTC())
	if err != nil { // E2B's answer when the name is another template's (RegisterBuild)
		writeErrorf(w, http.StatusConflict, "Alias '%s' is already used", name.alias)
		return
	}
	// Answered like a sandbox create, so that a fault dropping the answer
	// after the effect (Faults.DropAfterCreate) can cover this route.
	respondOrDrop(w, r, http.StatusAccepted, templateRequestResponseJSON{
		TemplateID: t.ID, BuildID: buildID, Public: t.Public,
		Names: append([]string{}, t.Names...), Tags: tags, Aliases: t.Aliases(),
	})
}

// freeDiskError refuses a minFreeDiskMb above the team's allowance as E2B does
// (LimitFreeDiskSize in e2b-dev/infra packages/api/internal/team): the
// emulator's allowance is the free space of its data dir, where the build's
// files go. The range (0 and up) is the request validator's.
func (s *API) freeDiskError(minFreeMB *int32) string {
	if minFreeMB == nil {
		return ""
	}
	free := hostfs.FreeMiB(s.opts.DataDir)
	if free < 0 || int64(*minFreeMB) <= free {
		return ""
	}
	return fmt.Sprintf("Free disk space can't be higher than %d MiB (if you need to increase this limit, please contact support)", free)
}

// resourceLimitError applies E2B's rules for a build's resources beyond the
// spec's minimums (LimitResources in e2b-dev/infra
// packages/api/internal/team/limits.go): at most 32 vCPUs, 1 or an even
// number, and an even number of MiB. The emulator's team has no tier limits.
func resourceLimitError(cpu, memoryMB *int32) string {
	switch {
	case cpu != nil && *cpu > 32:
		return "CPU count must be at most 32"
	case cpu != nil && *cpu != 1 && *cpu%2 != 0:
		return "CPU count must be 1 or an even number"
	case memoryMB != nil && *memoryMB%2 != 0:
		return "Memory must be divisible by 2"
	}
	return ""
}

// handleStartBuild answers POST /v2/templates/{id}/builds/{buildID}: the
// build runs in the background; a newer build of the same template cancels
// one still running, as on E2B.
func (s *API) handleStartBuild(w http.ResponseWriter, r *http.Request) {
	var req builder.Request
	if !decodeBody(w, r, &req) {
		return
	}
	if reg := req.FromImageRegistry; reg != nil {
		if msg := registryError(*reg); msg != "" {
			validationError(w, msg)
			return
		}
	}
	templateID, buildID := r.PathValue("id"), r.PathValue("buildID")
	if !uuidPattern.MatchString(buildID) {
		writeErrorf(w, http.StatusBadRequest, "Invalid build ID: %s", buildID)
		return
	}
	if msg := buildSourceError(req); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	_, b, found := s.buildOf(w, templateID, buildID)
	if !found {
		return
	}
	if b.Status != buildWaiting {
		writeError(w, http.StatusBadRequest, "build is not in waiting state")
		return
	}
	s.startBuild(w, templateID, buildID, req)
}

// buildOf finds the build buildID of the template whose ID is templateID (a
// name does not do on the start routes), answering 404 in E2B's words when
// there is none.
func (s *API) buildOf(w http.ResponseWriter, templateID, buildID string) (store.Template, store.Build, bool) {
	t, b, found := s.opts.Store.BuildByID(templateID, buildID)
	if !found || t.ID != templateID {
		writeErrorf(w, http.StatusNotFound, "Error when getting template: build '%s' of template '%s' not found", buildID, templateID)
		return store.Template{}, store.Build{}, false
	}
	return t, b, true
}

// startBuild runs the waiting build in the background and answers 202, as
// both start routes (current and deprecated) do.
func (s *API) startBuild(w http.ResponseWriter, templateID, buildID string, req builder.Request) {
	var err error
	// Started while the emulator is open, a build is one Close cancels.
	if !s.sandboxes.IfOpen(func() { err = s.builder.Start(templateID, buildID, req) }) {
		writeError(w, http.StatusServiceUnavailable, "emulator is shutting down")
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "build is not in waiting state")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// buildSourceError is E2B's check that a build starts from exactly one base (the spec cannot
// say it): a fromImage or a fromTemplate, an empty one counting as none.
func buildSourceError(req builder.Request) string {
	hasImage := req.FromImage != nil && *req.FromImage != ""
	hasTemplate := req.FromTemplate != nil && *req.FromTemplate != ""
	switch {
	case hasImage && hasTemplate:
		return "cannot specify both fromImage and fromTemplate"
	case !hasImage && !hasTemplate:
		return "must specify either fromImage or fromTemplate"
	}
	return ""
}

// registryError checks fromImageRegistry against its oneOf schemas.
func registryError(reg map[string]any) string {
	required := map[string][]string{
		"aws":      {"awsAccessKeyId", "awsSecretAccessKey", "awsRegion"},
		"gcp":      {"serviceAccountJson"},
		"registry": {"username", "password"},
	}
	typ, _ := reg["type"].(string)
	fields, ok := required[typ]
	if !ok {
		return `request body has an error: doesn't match schema: Error at "/fromImageRegistry/type": value is not one of the allowed values ["aws","gcp","registry"]`
	}
	for _, f := range fields {
		if v, ok := reg[f].(string); !ok || v == "" {
			return fmt.Sprintf(`request body has an error: doesn't match schema: Error at "/fromImageRegistry/%s": property "%s" is missing`, f, f)
		}
	}
	return ""
}

type templateBuildInfoJSON struct {
	Logs       []string            `json:"logs"`
	LogEntries []buildLogEntryJSON `json:"logEntries"`
	TemplateID string              `json:"templateID"`
	BuildID    string              `json:"buildID"`
	Status     string              `json:"status"`
	Reason     *buildReasonJSON    `json:"reason,omitempty"`
}

var logLevels = map[string]int{"debug": 0, "info": 1, "warn": 2, "error": 3}

// queryInt reads an optional non-negative integer query parameter.
func queryInt(w http.ResponseWriter, q url.Values, name string, def, max int64) (int64, bool) {
	raw := q.Get(name)
	if raw == "" {
		return def, true
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil:
		validationError(w, fmt.Sprintf(`parameter "%s" in query has an error: value %s: an invalid integer: invalid syntax`, name, raw))
	case n < 0:
		validationError(w, fmt.Sprintf(`parameter "%s" in query has an error: number must be at least 0`, name))
	case max > 0 && n > max:
		validationError(w, fmt.Sprintf(`parameter "%s" in query has an error: number must be at most %d`, name, max))
	default:
		return n, true
	}
	return 0, false
}

// queryEnum reads an optional enum query parameter ("" when absent).
func queryEnum(w http.ResponseWriter, q url.Values, name string, allowed ...string) (string, bool) {
	v := q.Get(name)
	if v == "" {
		return "", true
	}
	for _, a := range allowed {
		if v == a {
			return v, true
		}
	}
	validationError(w, fmt.Sprintf(`parameter "%s" in query has an error: value is not one of the allowed values %q`, name, allowed))
	return "", false
}

// lookupBuild finds {id} and {buildID} for the status and logs routes.
func (s *API) lookupBuild(w http.ResponseWriter, r *http.Request) (store.Template, store.Build, bool) {
	templateID, buildID := r.PathValue("id"), r.PathValue("buildID")
	if !uuidPattern.MatchString(buildID) {
		writeError(w, http.StatusBadRequest, "Invalid build id")
		return store.Template{}, store.Build{}, false
	}
	t, b, found := s.opts.Store.BuildByID(templateID, buildID)
	if !found {
		writeErrorf(w, http.StatusNotFound, "Build '%s' not found", buildID)
	}
	return t, b, found
}

func filterLevel(entries []buildLogEntryJSON, min string) []buildLogEntryJSON {
	if min == "" {
		return entries
	}
	out := make([]buildLogEntryJSON, 0, len(entries))
	for _, e := range entries {
		if logLevels[e.Level] >= logLevels[min] {
			out = append(out, e)
		}
	}
	return out
}

// handleBuildStatus answers GET .../builds/{buildID}/status with the log
// entries from logsOffset (after the level filter), at most limit of them.
func (s *API) handleBuildStatus(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, ok := queryInt(w, q, "logsOffset", 0, 1<<31-1)
	if !ok {
		return
	}
	limit, ok := queryInt(w, q, "limit", 100, 100)
	if !ok {
		return
	}
	level, ok := queryEnum(w, q, "level", "debug", "info", "warn", "error")
	if !ok {
		return
	}
	t, b, found := s.lookupBuild(w, r)
	if !found {
		return
	}
	info := templateBuildInfoJSON{Logs: []string{}, LogEntries: []buildLogEntryJSON{}, TemplateID: t.ID, BuildID: b.ID, Status: b.Status}
	entries := filterLevel(b.Logs, level)
	if int(offset) < len(entries) {
		end := min(int(offset+limit), len(entries))
		info.LogEntries = append(info.LogEntries, entries[offset:end]...)
	}
	if b.Reason != nil {
		rs := *b.Reason
		rs.LogEntries = []buildLogEntryJSON{}
		if rs.Step != nil {
			for _, e := range filterLevel(b.Logs, "warn") {
				if e.Step != nil && *e.Step == *rs.Step {
					rs.LogEntries = append(rs.LogEntries, e)
				}
			}
		}
		info.Reason = &rs
	}
	httpjson.Write(w, http.StatusOK, info)
}

// handleBuildLogs answers GET .../builds/{buildID}/logs: entries from the
// cursor (milliseconds) forward, or back from it (newest first).
func (s *API) handleBuildLogs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cursor, ok := queryInt(w, q, "cursor", -1, 0)
	if !ok {
		return
	}
	limit, ok := queryInt(w, q, "limit", 100, 100)
	if !ok {
		return
	}
	direction, ok := queryEnum(w, q, "direction", "forward", "backward")
	if !ok {
		return
	}
	level, ok := queryEnum(w, q, "level", "debug", "info", "warn", "error")
	if !ok {
		return
	}
	if _, ok := queryEnum(w, q, "source", "temporary", "persistent"); !ok {
		return
	}
	_, b, found := s.lookupBuild(w, r)
	if !found {
		return
	}
	entries := append([]buildLogEntryJSON(nil), filterLevel(b.Logs, level)...)
	out := []buildLogEntryJSON{}
	if direction == "backward" {
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].Timestamp.After(entries[j].Timestamp) })
	}
	for _, e := range entries {
		if int64(len(out)) >= limit {
			break
		}
		ms := e.Timestamp.UnixMilli()
		if cursor >= 0 && ((direction == "backward" && ms > cursor) || (direction != "backward" && ms < cursor)) {
			continue
		}
		out = append(out, e)
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"logs": out})
}
