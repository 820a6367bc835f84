package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const buildLogSecret = "env-step-secret-7d41c9e0a2"

// A template whose RUN step prints its env step's value (sensitive in
// e2b_template), read back by e2b_template_build and passed on to another
// resource, as a user reading the log would.
const buildLogSecretConfig = harness.RequiredProviders + `
resource "e2b_template" "t" {
  name          = "build-log-secret"
  from_template = "base"
  steps = [
    { env = { API_TOKEN = "` + buildLogSecret + `" } },
    { run = { command = "echo \"using token $API_TOKEN\"" } },
  ]
}

data "e2b_template_build" "b" {
  template = e2b_template.t.template_id
  build_id = e2b_template.t.build_id
}

variable "gen" {
  type = number
}

resource "terraform_data" "log" {
  count = var.gen > 1 ? 1 : 0
  input = [data.e2b_template_build.b.log_entries, data.e2b_template_build.b.reason]
}
`

// The build log holds what steps print, an env step's value too: the CLI
// never prints it, in apply, in a plan that shows the log as a value (the
// second plan adds terraform_data, whose input the data source fills at plan
// time) or in state show. The state holds it (checked, so that the test
// proves something), as for any sensitive value.
func TestCLITemplateBuildDataSource_neverPrintsStepSecrets(t *testing.T) {
	ws := harness.NewWorkspace(t, newTestEmulator(t))
	ws.Write("main.tf", buildLogSecretConfig)
	ctx := context.Background()
	outputs := map[string]harness.Result{}
	outputs["apply"] = ws.Apply(ctx, "-var", "gen=1")
	if r := outputs["apply"]; r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Output())
	}
	outputs["plan"] = ws.Run(ctx, "plan", "-no-color", "-input=false", "-var", "gen=2")
	outputs["state show"] = ws.Run(ctx, "state", "show", "-no-color", "data.e2b_template_build.b")
	for name, r := range outputs {
		if r.Err != nil {
			t.Fatalf("%s: %v\n%s", name, r.Err, r.Output())
		}
		if i := strings.Index(r.Output(), buildLogSecret); i >= 0 {
			t.Errorf("%s printed the env step's value: …%s…", name, r.Output()[max(0, i-200):min(len(r.Output()), i+40)])
		}
	}
	if !strings.Contains(outputs["plan"].Output(), "terraform_data.log[0] will be created") {
		t.Fatalf("the plan does not add terraform_data.log, so it shows no log:\n%s", outputs["plan"].Output())
	}
	inState := false
	for _, res := range ws.State(ctx) {
		if res.Address == "data.e2b_template_build.b" {
			raw, _ := json.Marshal(res.Values["log_entries"])
			inState = strings.Contains(string(raw), "using token "+buildLogSecret)
		}
	}
	if !inState {
		t.Fatalf("the build log read back lacks the printed value; the check above proves nothing")
	}
	if r := ws.Destroy(ctx, "-var", "gen=1"); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
}
