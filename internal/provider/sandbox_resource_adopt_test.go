package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// adoptedSandboxVolume is the volume the sandbox made out of band mounts.
const adoptedSandboxVolume = "adopt-sb-vol"

// createSandboxOutOfBand makes a sandbox as another client does, through E2B's REST API with
// every option away from its default, and returns its ID.
func createSandboxOutOfBand(t *testing.T, srv *emulator.Server) string {
	t.Helper()
	if testSandboxRoutesV1Off() {
		t.Skip("the sandbox to adopt has secure = false, which only E2B's v1 create makes, and " +
			envTestSandboxRoutes + "=v2 switched v1 off")
	}
	ctx := context.Background()
	if _, err := testAccClient(t, srv).CreateVolume(ctx, adoptedSandboxVolume); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{
		"templateID": "mcp-gateway",
		"timeout":    3600,
		"secure":     false,
		"autoPause":  true,
		"autoResume": map[string]any{"enabled": true},
		"metadata":   map[string]string{"team": "data"},
		"envVars":    map[string]string{"APP_ENV": "prod"},
		"mcp":        map[string]any{"github": map[string]string{"githubPersonalAccessToken": "adopt-mcp-token"}},
		"iam": map[string]any{"tokens": map[string]any{
			"gcp": map[string]string{"audience": "https://iam.example", "tokenType": "JWT-SVID"}}},
		"volumeMounts": []map[string]string{{"name": adoptedSandboxVolume, "path": "/mnt/data"}},
		"network": map[string]any{
			"allowOut":    []string{"localhost"},
			"denyOut":     []string{"0.0.0.0/0"},
			"rules":       map[string]any{"localhost": []any{map[string]any{"transform": map[string]any{"headers": map[string]string{"X-Team": "data"}}}}},
			"egressProxy": map[string]string{"address": "127.0.0.1:1080", "username": "u", "password": "adopt-proxy-password"},
		},
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.APIURL()+"/sandboxes", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", srv.APIKey())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create sandbox: %s: %s", res.Status, out)
	}
	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	if err := json.Unmarshal(out, &sb); err != nil {
		t.Fatal(err)
	}
	return sb.SandboxID
}

// testAdoptSandboxByImportBlock adopts the sandbox by an import block: the plan imports it and
// records what E2B never returns (env_vars, iam, mcp) in place, replaces nothing, and the plan
// after the apply is empty (the test framework checks it).
func testAdoptSandboxByImportBlock(t *testing.T, importBlock string, checks ...tfversion.TerraformVersionCheck) {
	srv := newTestEmulator(t)
	id := createSandboxOutOfBand(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   checks,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{{
			Config: testAccProviderBlock(srv) + testAccTestdataFrom(t, "adopted_sandbox", "sandbox.tf", importBlock),
			ConfigVariables: config.Variables{
				"sandbox_id": config.StringVariable(id), "volume": config.StringVariable(adoptedSandboxVolume),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("e2b_sandbox.adopted", plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("e2b_sandbox.adopted", tfjsonpath.New("id"), knownvalue.StringExact(id)),
				statecheck.ExpectKnownValue("e2b_sandbox.adopted", tfjsonpath.New("mcp_url"), knownvalue.NotNull()),
			},
		}},
	})
}

// A sandbox made by another client with every option away from its default is adopted by an
// import block with its ID (every CLI) without a replacement.
func TestAccSandbox_adoptByImportID(t *testing.T) {
	testAdoptSandboxByImportBlock(t, "by_id.tf")
}

// The same by an import block with the identity (Terraform and OpenTofu 1.12+).
func TestAccSandbox_adoptByIdentity(t *testing.T) {
	testAdoptSandboxByImportBlock(t, "by_identity.tf", tfversion.SkipBelow(tfversion.Version1_12_0))
}

// `terraform query -generate-config-out` for a sandbox made by another client with every option
// away from its default: the generated configuration plans only the import, the apply adopts it,
// and the plan after is empty. What E2B never returns (env_vars, iam, mcp) is left out.
func TestAccSandbox_adoptByQuery(t *testing.T) {
	srv := newTestEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	skipWithoutQuery(t, ws, tfversion.Version1_14_0)
	tfversion.SkipBelow(tfversion.Version1_14_0) // found by scripts/test.sh's terraform14 stage
	id := createSandboxOutOfBand(t, srv)
	ws.Write("main.tf", harness.RequiredProviders+`
provider "e2b" {}
`)
	writeListAllQuery(ws, "sandbox")
	ctx := context.Background()
	gen := generateConfigByQuery(t, ctx, ws)
	for _, want := range []string{id, `timeout\s+= "1h"`, `secure\s+= false`, `auto_pause\s+= true`, `auto_resume\s+= true`,
		`"0.0.0.0/0"`, `localhost = \{\s+headers = null # sensitive`, `address\s+= "127.0.0.1:1080"`, `/mnt/data`} {
		if !regexp.MustCompile(want).Match(gen) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	if strings.Contains(string(gen), "adopt-proxy-password") || strings.Contains(string(gen), "adopt-mcp-token") {
		t.Fatalf("generated.tf holds a secret:\n%s", gen)
	}
	if t.Failed() {
		return
	}
	// Rule headers are sensitive, so Terraform writes them as null: the user fills them in, as the
	// import guide says.
	gen = regexp.MustCompile(`headers = null # sensitive`).ReplaceAll(gen, []byte(`headers = { X-Team = "data" }`))
	if err := os.WriteFile(filepath.Join(ws.Dir, "generated.tf"), gen, 0o600); err != nil {
		t.Fatal(err)
	}
	applyGeneratedImports(t, ctx, ws, gen, 1)
	ws.MustRun(ctx, "destroy", "-auto-approve", "-no-color", "-input=false")
}
