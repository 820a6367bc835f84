package controlplane_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

const invalidAccessToken = "Invalid Access token, try to login again by running `e2b auth login`."

// asUser calls the control plane with headers in place of the API key.
func asUser(c *emulatortest.Client, method, path string, body any, headers map[string]string) (int, []byte) {
	c.T.Helper()
	st, data, _ := c.Request(method, c.Srv.APIURL()+path, body, headers)
	return st, data
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// The access token opens the operations E2B's spec opens to it and no
// other; the API key opens none of the access-token-only ones.
func TestAccessTokenOpensOnlyTheOperationsE2BsSpecOpensToIt(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	token := bearer(c.Srv.AccessToken())
	if !strings.HasPrefix(c.Srv.AccessToken(), "sk_e2b_") {
		t.Fatalf("access token %q lacks E2B's prefix", c.Srv.AccessToken())
	}
	body := map[string]any{"dockerfile": "FROM e2bdev/base", "cpuCount": 2, "memoryMB": 1024}

	st, data := asUser(c, "POST", "/templates", body, token)
	emulatortest.WantStatus(t, "POST /templates with the access token", st, data, http.StatusAccepted)
	requested := emulatortest.Decode[map[string]any](t, data)
	templateID, _ := requested["templateID"].(string)
	buildID, _ := requested["buildID"].(string)
	if templateID == "" || buildID == "" || requested["cpuCount"] != float64(2) {
		t.Fatalf("POST /templates answered %s", data)
	}

	for _, tc := range []struct {
		what, method, path string
		body               any
		headers            map[string]string
		want               string
	}{
		{"the API key on POST /templates", "POST", "/templates", body, map[string]string{emulatortest.HeaderAPIKey: c.Srv.APIKey()}, "authorization header is missing"},
		{"no credentials", "POST", "/templates", body, nil, "authorization header is missing"},
		{"an unknown access token", "POST", "/templates", body, bearer("sk_e2b_0123456789"), invalidAccessToken},
		{"a bearer token that is no access token", "POST", "/templates", body, bearer("eyJhbGciOi"), "authorization header is malformed"},
		{"the access token on an API-key operation", "GET", "/sandboxes", nil, token, "authorization header is missing"},
		{"the access token on DELETE /templates/tags", "DELETE", "/templates/tags", map[string]any{"name": "x", "tags": []string{"a"}}, token, "authorization header is missing"},
		{"the API key on GET /teams", "GET", "/teams", nil, map[string]string{emulatortest.HeaderAPIKey: c.Srv.APIKey()}, "authorization header is missing"},
		{"a wrong API key and no access token on GET /templates", "GET", "/templates", nil, map[string]string{emulatortest.HeaderAPIKey: "e2b_0000"}, "Invalid API key, please visit https://e2b.dev/docs/api-key for more information."},
	} {
		st, data := asUser(c, tc.method, tc.path, tc.body, tc.headers)
		emulatortest.WantError(t, tc.what, st, data, http.StatusUnauthorized, tc.want)
	}

	// Where the spec takes either, either does.
	both := map[string]string{emulatortest.HeaderAPIKey: "e2b_0000", "Authorization": "Bearer " + c.Srv.AccessToken()}
	for _, path := range []string{"/templates", "/v2/templates", "/templates/" + templateID + "/builds/" + buildID + "/status"} {
		st, data := asUser(c, "GET", path, nil, both)
		emulatortest.WantStatus(t, path+" with the access token beside a wrong key", st, data, http.StatusOK)
	}
	st, data = asUser(c, "GET", "/v2/templates?teamID=11111111-1111-1111-1111-111111111111", nil, token)
	emulatortest.WantError(t, "another team's templates as the user", st, data, http.StatusForbidden, "You are not allowed to access this team")

	st, data = asUser(c, "GET", "/teams", nil, token)
	emulatortest.WantStatus(t, "GET /teams", st, data, http.StatusOK)
	teams := emulatortest.Decode[[]map[string]any](t, data)
	if len(teams) != 1 || teams[0]["teamID"] != controlplane.TeamID || teams[0]["apiKey"] != c.Srv.APIKey() || teams[0]["isDefault"] != true {
		t.Fatalf("GET /teams answered %s", data)
	}
}

// POST /templates checks its body as E2B does: the spec's bounds first
// (with the SDK-side spec, the one that describes the operation), then
// E2B's own rules, then the team.
func TestLegacyTemplateRequestRefusesWhatE2BRefuses(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	token := bearer(c.Srv.AccessToken())
	for _, tc := range []struct {
		body   map[string]any
		status int
		prefix string
	}{
		{map[string]any{"cpuCount": 2, "memoryMB": 1024}, http.StatusBadRequest, "validation error: "},
		{map[string]any{"dockerfile": "FROM x", "cpuCount": 0, "memoryMB": 1024}, http.StatusBadRequest, "validation error: "},
		{map[string]any{"dockerfile": "FROM x", "cpuCount": 2, "memoryMB": 32}, http.StatusBadRequest, "validation error: "},
		{map[string]any{"dockerfile": "FROM x", "cpuCount": 2, "memoryMB": 1001}, http.StatusBadRequest, "Memory must be divisible by 2"},
		{map[string]any{"dockerfile": "FROM x", "teamID": "11111111-1111-1111-1111-111111111111"}, http.StatusForbidden, "You are not allowed to access this team"},
		{map[string]any{"dockerfile": "FROM x", "alias": "bad alias!"}, http.StatusBadRequest, "Invalid alias: "},
	} {
		st, data := asUser(c, "POST", "/templates", tc.body, token)
		e := emulatortest.Decode[map[string]any](t, data)
		if msg, _ := e["message"].(string); st != tc.status || !strings.HasPrefix(msg, tc.prefix) {
			t.Errorf("%v: %d %s, want %d %q...", tc.body, st, data, tc.status, tc.prefix)
		}
	}
	st, data := asUser(c, "POST", "/templates/nosuchtemplate", map[string]any{"dockerfile": "FROM x"}, token)
	emulatortest.WantError(t, "rebuild of a missing template", st, data, http.StatusNotFound, "Template 'nosuchtemplate' not found")
	// E2B looks the template up by ID only: an alias is not found.
	st, data = asUser(c, "POST", "/templates/base", map[string]any{"dockerfile": "FROM x"}, token)
	emulatortest.WantError(t, "rebuild by alias", st, data, http.StatusNotFound, "Template 'base' not found")
	st, data = asUser(c, "POST", "/templates/"+store.BaseTemplateID, map[string]any{"dockerfile": "FROM x"}, token)
	emulatortest.WantError(t, "rebuild of E2B's base", st, data, http.StatusForbidden, "You do not have access to the template '"+store.BaseTemplateID+"'")
}

// A Dockerfile build starts from the image E2B's CLI pushes for it, here
// the host base root (-host-root-images), runs its start and ready
// commands, and a rebuild adds a build to the same template.
func TestLegacyDockerfileBuildRunsFromItsPushedImage(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{HostRootImages: []string{"*"}, ReadyTimeout: 20 * time.Second})
	token := bearer(c.Srv.AccessToken())
	st, data := asUser(c, "POST", "/templates", map[string]any{"dockerfile": "FROM ubuntu:22.04", "alias": "legacy-app",
		"startCmd": "echo up > up.txt; sleep 600", "readyCmd": "test -f up.txt"}, token)
	emulatortest.WantStatus(t, "request", st, data, http.StatusAccepted)
	b := emulatortest.Decode[emulatortest.RequestedBuild](t, data)
	st, data = asUser(c, "POST", "/templates/"+b.TemplateID+"/builds/"+b.BuildID, nil, token)
	emulatortest.WantStatus(t, "start", st, data, http.StatusAccepted)
	res := c.WaitBuild(b)
	logs := emulatortest.LogText(res.LogEntries)
	if res.Status != store.BuildReady || !strings.Contains(logs, "FROM docker.e2b.dev/e2b/custom-envs/"+b.TemplateID+":"+b.BuildID) ||
		!strings.Contains(logs, "Template is ready") {
		t.Fatalf("build %s %+v:\n%s", res.Status, res.Reason, logs)
	}
	st, data = asUser(c, "POST", "/templates/"+b.TemplateID+"/builds/"+b.BuildID, nil, token)
	emulatortest.WantError(t, "start twice", st, data, http.StatusBadRequest, "build is not in waiting state")
	sb := c.Create(map[string]any{"templateID": "legacy-app"})
	if got := c.MustRun(sb, "cat up.txt"); got != "up\n" {
		t.Fatalf("the sandbox's start command wrote %q", got)
	}
	st, data = asUser(c, "POST", "/templates/"+b.TemplateID, map[string]any{"dockerfile": "FROM ubuntu:22.04"}, token)
	emulatortest.WantStatus(t, "rebuild", st, data, http.StatusAccepted)
	if again := emulatortest.Decode[emulatortest.RequestedBuild](t, data); again.TemplateID != b.TemplateID || again.BuildID == b.BuildID {
		t.Fatalf("rebuild answered %s", data)
	}
}

// Without an image of that name the build fails naming it, as a build from
// an image the emulator cannot pull does.
func TestLegacyDockerfileBuildFailsWithoutItsImage(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	token := bearer(c.Srv.AccessToken())
	st, data := asUser(c, "POST", "/templates", map[string]any{"dockerfile": "FROM ubuntu:22.04"}, token)
	emulatortest.WantStatus(t, "request", st, data, http.StatusAccepted)
	b := emulatortest.Decode[emulatortest.RequestedBuild](t, data)
	st, data = asUser(c, "POST", "/templates/"+b.TemplateID+"/builds/"+b.BuildID, nil, token)
	emulatortest.WantStatus(t, "start", st, data, http.StatusAccepted)
	res := c.WaitBuild(b)
	if res.Status != store.BuildError || res.Reason == nil || !strings.Contains(res.Reason.Message, "docker.e2b.dev/e2b/custom-envs/"+b.TemplateID+":"+b.BuildID) {
		t.Fatalf("build %s %+v", res.Status, res.Reason)
	}
}
