package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// The objects another client made, with every option E2B accepts set away
// from its default, and what adopting them must bring into state.
type madeElsewhere struct {
	templateID, privateTemplateID, buildID, snapshotID, unnamedSnapshotID, volumeID, secretID, plainSecretID, webhookID, plainWebhookID string
}

// Names of what madeElsewhere holds.
const (
	elsewhereTemplate = "made-elsewhere"
	elsewhereSnapshot = "made-elsewhere-snap"
	elsewhereVolume   = "made-elsewhere-vol"
	elsewhereSecret   = "made-elsewhere-secret"
	elsewhereHook     = "made-elsewhere-hook"
	elsewhereValue    = "elsewhere-secret-value-41c8"
	elsewhereSigning  = "elsewhere-signature-secret-0d7e"
	elsewhereRegistry = "elsewhere-registry-password-77ab"
	elsewhereImage    = "ghcr.io/acme/private-app:1"
)

// newAdoptionEmulator is an emulator that builds elsewhereImage (a private
// registry's image) on its host root.
func newAdoptionEmulator(t *testing.T) *emulator.Server {
	t.Helper()
	return newTestEmulatorWith(t, emulator.Options{HostRootImages: []string{elsewhereImage}})
}

// restCall sends one request of E2B's REST API as E2B's SDK and CLI send it
// (JSON, X-API-Key) and decodes the answer into out, failing the test on a
// status other than want.
func restCall(t *testing.T, srv *emulator.Server, method, path string, body any, want int, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, srv.APIURL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", srv.APIKey())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// makeEverythingElsewhere creates an object of every team type through E2B's
// REST API, each with the options E2B accepts set away from their defaults:
// a public template with 4 vCPUs, 2 GiB, a tag given at build and one added
// after; a named snapshot and an unnamed one; a volume; a secret with
// metadata and one without, named in upper case (E2B lower-cases it); a disabled
// webhook with two events and a name, and an enabled one without a name; a
// template built from a private registry with credentials.
func makeEverythingElsewhere(t *testing.T, srv *emulator.Server) madeElsewhere {
	t.Helper()
	var m madeElsewhere
	m.templateID, m.buildID = buildElsewhere(t, srv, map[string]any{
		"name": elsewhereTemplate, "tags": []string{"v1"}, "cpuCount": 4, "memoryMB": 2048,
	}, map[string]any{
		"fromTemplate": "base",
		"steps":        []map[string]any{{"type": "RUN", "args": []string{"echo made elsewhere"}}},
		"startCmd":     "sleep infinity",
		"readyCmd":     "true",
	})
	m.privateTemplateID, _ = buildElsewhere(t, srv, map[string]any{"name": elsewhereTemplate + "-private"}, map[string]any{
		"fromImageRegistry": map[string]any{"type": "registry", "username": "bot", "password": elsewhereRegistry},
		"fromImage":         elsewhereImage,
	})
	restCall(t, srv, "PATCH", "/v2/templates/"+m.templateID, map[string]any{"public": true}, http.StatusOK, nil)
	restCall(t, srv, "POST", "/templates/tags", map[string]any{
		"target": elsewhereTemplate + ":v1", "tags": []string{"prod"},
	}, http.StatusCreated, nil)

	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	restCall(t, srv, "POST", "/v2/sandboxes", map[string]any{"templateID": "base", "timeout": 600}, http.StatusCreated, &sb)
	var snap struct {
		SnapshotID string `json:"snapshotID"`
	}
	restCall(t, srv, "POST", "/sandboxes/"+sb.SandboxID+"/snapshots", map[string]any{"name": elsewhereSnapshot}, http.StatusCreated, &snap)
	m.snapshotID = snap.SnapshotID
	restCall(t, srv, "POST", "/sandboxes/"+sb.SandboxID+"/snapshots", map[string]any{}, http.StatusCreated, &snap)
	m.unnamedSnapshotID = snap.SnapshotID
	restCall(t, srv, "DELETE", "/sandboxes/"+sb.SandboxID, nil, http.StatusNoContent, nil)

	var vol struct {
		VolumeID string `json:"volumeID"`
		Token    string `json:"token"`
	}
	restCall(t, srv, "POST", "/volumes", map[string]any{"name": elsewhereVolume}, http.StatusCreated, &vol)
	m.volumeID = vol.VolumeID
	putVolumeFile(t, srv, vol.VolumeID, vol.Token)

	var sec struct {
		ID string `json:"secretID"`
	}
	restCall(t, srv, "POST", "/secrets", map[string]any{
		"name": elsewhereSecret, "value": elsewhereValue, "metadata": map[string]string{"team": "data", "owner": "ci"},
	}, http.StatusCreated, &sec)
	m.secretID = sec.ID
	restCall(t, srv, "POST", "/secrets", map[string]any{"name": "PLAIN-" + elsewhereSecret, "value": elsewhereValue}, http.StatusCreated, &sec)
	m.plainSecretID = sec.ID

	var hook struct {
		ID string `json:"id"`
	}
	restCall(t, srv, "POST", "/events/webhooks", map[string]any{
		"name": elsewhereHook, "url": "https://hooks.example/elsewhere", "enabled": false,
		"events": []string{"sandbox.lifecycle.paused", "sandbox.lifecycle.killed"}, "signatureSecret": elsewhereSigning,
	}, http.StatusCreated, &hook)
	m.webhookID = hook.ID
	restCall(t, srv, "POST", "/events/webhooks", map[string]any{ // E2B requires a name; "" is none
		"name": "", "url": "https://hooks.example/plain", "events": []string{"sandbox.lifecycle.created"}, "signatureSecret": elsewhereSigning,
	}, http.StatusCreated, &hook)
	m.plainWebhookID = hook.ID
	for _, id := range []string{m.templateID, m.privateTemplateID, m.buildID, m.snapshotID, m.unnamedSnapshotID, m.volumeID, m.secretID, m.plainSecretID, m.webhookID, m.plainWebhookID} {
		if id == "" {
			t.Fatalf("an answer of E2B's API lacked an ID: %+v", m)
		}
	}
	return m
}

// putVolumeFile writes elsewhereFile into a volume through E2B's
// volume-content API, with a mode and owner away from the defaults.
func putVolumeFile(t *testing.T, srv *emulator.Server, volumeID, token string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), "PUT", srv.APIURL()+"/volumecontent/"+volumeID+
		"/file?path=%2Fapp.json&mode=416&uid=1000&gid=1001", strings.NewReader(`{"made":"elsewhere"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT volume file: %d: %s", resp.StatusCode, b)
	}
}

// buildElsewhere requests a template build and starts it as E2B's SDK does,
// waiting until it is ready.
func buildElsewhere(t *testing.T, srv *emulator.Server, request, start map[string]any) (templateID, buildID string) {
	t.Helper()
	var build struct {
		TemplateID string `json:"templateID"`
		BuildID    string `json:"buildID"`
	}
	restCall(t, srv, "POST", "/v3/templates", request, http.StatusAccepted, &build)
	restCall(t, srv, "POST", "/v2/templates/"+build.TemplateID+"/builds/"+build.BuildID, start, http.StatusAccepted, nil)
	for deadline := time.Now().Add(30 * time.Second); ; {
		var st struct {
			Status string `json:"status"`
		}
		restCall(t, srv, "GET", "/templates/"+build.TemplateID+"/builds/"+build.BuildID+"/status", nil, http.StatusOK, &st)
		if st.Status == "ready" {
			return build.TemplateID, build.BuildID
		}
		if st.Status == "error" || time.Now().After(deadline) {
			t.Fatalf("build %s: %s", build.BuildID, st.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// adoptionImports is one import block per object: by ID (by name where E2B
// resolves one, when byName), or by identity.
// Each names the provider, which Terraform 1.16 needs to generate the
// configuration ("failed to read schema … hashicorp/e2b" without), and
// refuses once the resource block exists: adoptionImportsGenerated drops it.
func (m madeElsewhere) adoptionImports(byIdentity, byName bool) string {
	type imp struct{ to, id, identity string }
	template, volume, secret := m.templateID, m.volumeID, m.secretID
	if byName {
		template, volume, secret = elsewhereTemplate, elsewhereVolume, elsewhereSecret
	}
	imps := []imp{
		{"e2b_template.private", m.privateTemplateID, fmt.Sprintf("{ template_id = %q }", m.privateTemplateID)},
		{"e2b_webhook.plain", m.plainWebhookID, fmt.Sprintf("{ webhook_id = %q }", m.plainWebhookID)},
		{"e2b_secret.plain", m.plainSecretID, fmt.Sprintf("{ secret_id = %q }", m.plainSecretID)},
		{"e2b_template.app", template, fmt.Sprintf("{ template_id = %q }", m.templateID)},
		{"e2b_template_tag.v1", elsewhereTemplate + ":v1", fmt.Sprintf("{ template = %q, tag = \"v1\" }", elsewhereTemplate)},
		{"e2b_template_tag.prod", elsewhereTemplate + ":prod", fmt.Sprintf("{ template = %q, tag = \"prod\" }", elsewhereTemplate)},
		{"e2b_snapshot.snap", m.snapshotID, fmt.Sprintf("{ snapshot_id = %q }", m.snapshotID)},
		{"e2b_snapshot.unnamed", m.unnamedSnapshotID, fmt.Sprintf("{ snapshot_id = %q }", m.unnamedSnapshotID)},
		{"e2b_volume_file.app", m.volumeID + ":/app.json", fmt.Sprintf("{ volume_id = %q, path = \"/app.json\" }", m.volumeID)},
		{"e2b_volume.data", volume, fmt.Sprintf("{ volume_id = %q }", m.volumeID)},
		{"e2b_secret.token", secret, fmt.Sprintf("{ secret_id = %q }", m.secretID)},
		{"e2b_webhook.hook", m.webhookID, fmt.Sprintf("{ webhook_id = %q }", m.webhookID)},
	}
	var b strings.Builder
	for _, i := range imps {
		if byIdentity {
			fmt.Fprintf(&b, "import {\n  provider = e2b\n  to       = %s\n  identity = %s\n}\n\n", i.to, i.identity)
		} else {
			fmt.Fprintf(&b, "import {\n  provider = e2b\n  to       = %s\n  id       = %q\n}\n\n", i.to, i.id)
		}
	}
	return b.String()
}

const adoptionProviderFile = harness.RequiredProviders + `
provider "e2b" {}
`

// adoptionCLIVersion is the version of the workspace's CLI and whether it is OpenTofu.
func adoptionCLIVersion(t *testing.T, ws *harness.Workspace) (*version.Version, bool) {
	t.Helper()
	return cliVersion(t, ws), strings.Contains(filepath.Base(ws.CLI), "tofu")
}

// adoptGenerated plans the workspace with configuration generated into
// generated.tf (by `query` or by `plan`), and checks that the plan only
// imports, that apply adopts without change, and that the plan after it is
// empty; no value E2B keeps to itself appears anywhere.
func adoptGenerated(t *testing.T, ws *harness.Workspace, m madeElsewhere, imports int) {
	t.Helper()
	ctx := context.Background()
	run := func(args ...string) string {
		t.Helper()
		r := ws.Run(ctx, args...)
		if r.Err != nil {
			gen, _ := os.ReadFile(filepath.Join(ws.Dir, "generated.tf"))
			t.Fatalf("%s: %v\n%s\n--- generated.tf:\n%s", strings.Join(args, " "), r.Err, r.Output(), gen)
		}
		return r.Output()
	}
	plan := run("plan", "-no-color", "-input=false")
	gen, err := os.ReadFile(filepath.Join(ws.Dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{elsewhereValue, elsewhereSigning, elsewhereRegistry} {
		if strings.Contains(string(gen), secret) || strings.Contains(plan, secret) {
			t.Fatalf("a value E2B never returns reached the configuration or plan:\n%s\n%s", gen, plan)
		}
	}
	want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", imports)
	if !strings.Contains(plan, want) {
		t.Fatalf("the plan of the generated configuration does more than import (want %q):\n%s\n--- generated.tf:\n%s", want, plan, gen)
	}
	run("apply", "-auto-approve", "-no-color", "-input=false")
	if r := ws.Run(ctx, "plan", "-no-color", "-input=false", "-detailed-exitcode"); r.Err != nil {
		t.Fatalf("the plan after adopting is not empty: %v\n%s\n--- generated.tf:\n%s", r.Err, r.Output(), gen)
	}
	var show struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Type   string         `json:"type"`
					Values map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(run("show", "-json")), &show); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, r := range show.Values.RootModule.Resources {
		if r.Type == "e2b_template_tag" || r.Type == "e2b_snapshot" && r.Values["name"] == nil ||
			r.Type == "e2b_secret" && r.Values["secret_id"] == m.plainSecretID || r.Type == "e2b_template" && r.Values["template_id"] == m.privateTemplateID || r.Type == "e2b_webhook" && r.Values["id"] == m.plainWebhookID {
			continue
		}
		got[r.Type] = r.Values
	}
	for typ, want := range map[string]map[string]any{
		"e2b_template": {"template_id": m.templateID, "name": elsewhereTemplate, "public": true, "cpu_count": 4.0, "memory_mb": 2048.0, "build_id": m.buildID},
		"e2b_snapshot": {"snapshot_id": m.snapshotID, "name": elsewhereSnapshot},
		"e2b_volume":   {"volume_id": m.volumeID, "name": elsewhereVolume},
		"e2b_secret":   {"secret_id": m.secretID, "name": elsewhereSecret},
		"e2b_webhook":  {"id": m.webhookID, "name": elsewhereHook, "enabled": false},
	} {
		for attr, v := range want {
			if got[typ][attr] != v {
				t.Errorf("%s.%s = %#v in state, want %#v", typ, attr, got[typ][attr], v)
			}
		}
	}
	// What E2B never returns is sent once the configuration gives it: in
	// place, never a replacement (sensitive_value and
	// sensitive_signature_secret, which every CLI here has).
	rotated := regexp.MustCompile(`\b(sensitive_value|sensitive_signature_secret)(\s+=) null # sensitive`).
		ReplaceAll(gen, []byte(`$1$2 "rotated-elsewhere"`))
	ws.Write("generated.tf", string(rotated))
	if out := run("plan", "-no-color", "-input=false"); !strings.Contains(out, "Plan: 0 to add, 4 to change, 0 to destroy.") {
		t.Fatalf("giving the values E2B never returns does more than 4 in-place updates:\n%s", out)
	}
	run("apply", "-auto-approve", "-no-color", "-input=false")
	var sec struct {
		CurrentVersion int64 `json:"currentVersion"`
	}
	restCall(t, ws.Emulator, "GET", "/secrets/"+m.secretID, nil, http.StatusOK, &sec)
	if sec.CurrentVersion != 2 {
		t.Errorf("the adopted secret is at version %d after its value was given, want 2", sec.CurrentVersion)
	}
	if r := ws.Run(ctx, "plan", "-no-color", "-input=false", "-detailed-exitcode"); r.Err != nil {
		t.Fatalf("the plan after sending the values is not empty: %v\n%s", r.Err, r.Output())
	}
	run("destroy", "-auto-approve", "-no-color", "-input=false")
}

// Objects of every team type made by another client through E2B's REST API,
// with every option E2B accepts away from its default, are adopted by
// `terraform query -generate-config-out` (Terraform 1.14+): the plan of the
// generated configuration only imports, the apply changes nothing, and the
// plan after it is empty.
func TestAccTeamObjects_adoptWhatOthersMadeByQuery(t *testing.T) {
	srv := newAdoptionEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	skipWithoutQuery(t, ws, tfversion.Version1_14_0)
	m := makeEverythingElsewhere(t, srv)
	ws.Write("main.tf", adoptionProviderFile)
	writeListAllQuery(ws, "template", "template_tag", "snapshot", "volume", "secret", "webhook")
	ws.MustRun(context.Background(), "query", "-no-color", "-generate-config-out=generated.tf")
	adoptGenerated(t, ws, m, 11)
}

// The same objects adopted by import blocks, by ID on every CLI and by
// identity where the CLI has identities (Terraform and OpenTofu 1.12+), with
// the configuration generated by `plan -generate-config-out`.
func TestAccTeamObjects_adoptWhatOthersMadeByImportBlocks(t *testing.T) {
	for _, by := range []string{"id", "name", "identity"} {
		byIdentity, byName := by == "identity", by == "name"
		t.Run(by, func(t *testing.T) {
			srv := newAdoptionEmulator(t)
			ws := harness.NewWorkspace(t, srv)
			got, _ := adoptionCLIVersion(t, ws)
			if byIdentity && got.LessThan(tfversion.Version1_12_0) {
				t.Skipf("%s %s has no import by identity (1.12+ has)", ws.CLI, got)
			}
			m := makeEverythingElsewhere(t, srv)
			ws.Write("main.tf", adoptionProviderFile+m.adoptionImports(byIdentity, byName))
			if r := ws.Run(context.Background(), "plan", "-no-color", "-input=false", "-generate-config-out=generated.tf"); r.Err != nil {
				gen, _ := os.ReadFile(filepath.Join(ws.Dir, "generated.tf"))
				if !regexp.MustCompile(`(?s)generated`).MatchString(r.Output()) || len(gen) == 0 {
					t.Fatalf("plan -generate-config-out: %v\n%s", r.Err, r.Output())
				}
				t.Logf("plan -generate-config-out (the configuration is written even when this plan fails): %v\n%s", r.Err, r.Output())
			}
			// As Terraform asks once the configuration exists: the provider
			// argument belongs to the resource blocks, the default one here.
			ws.Write("main.tf", adoptionProviderFile+strings.ReplaceAll(m.adoptionImports(byIdentity, byName), "  provider = e2b\n", ""))
			adoptGenerated(t, ws, m, 12)
		})
	}
}
