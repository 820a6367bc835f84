package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// Every duration attribute of every type the CLI validates without a call: a value without a
// unit gives one error, naming the attribute and showing the value with a unit.
const badDurationsConfig = harness.RequiredProviders + `
provider "e2b" {}

resource "e2b_sandbox" "s" {
  timeout = "90"
  timeouts {
    create = "300"
  }
}

resource "e2b_sandbox_command" "c" {
  sandbox_id = "abc"
  command    = "true"
  timeout    = "45"
}

resource "e2b_template" "t" {
  name       = "dur"
  from_image = "alpine:3"
  ready      = { after = "20" }
  timeouts {
    update = "600"
  }
}

ephemeral "e2b_sandbox" "e" {
  timeout = "120"
  timeouts {
    open = "60"
  }
}

ephemeral "e2b_sandbox_access" "a" {
  sandbox_id = "abc"
  timeout    = "15"
}
`

// The CLI stops at the provider block's errors, so it is checked on its own.
const badProviderDurationsConfig = harness.RequiredProviders + `
provider "e2b" {
  request_timeout = "30"
  retry_wait_min  = "1"
  retry_wait_max  = "20"
}

# validate checks the provider block only for a configuration that uses the provider.
resource "e2b_volume" "v" {
  name = "v"
}
`

func TestCLIDurations_oneClearErrorPerAttribute(t *testing.T) {
	ws := harness.NewWorkspace(t, nil)
	skipBelowWriteOnly(t, ws) // ephemeral resources
	checkDurationErrors(t, ws, badDurationsConfig, map[string]string{
		"timeout": `"90s"`, "timeouts.create": `"300s"`, "ready.after": `"20s"`, "timeouts.update": `"600s"`,
		"timeouts.open": `"60s"`,
	}, 8) // timeout appears on four types
	checkDurationErrors(t, ws, badProviderDurationsConfig, map[string]string{
		"request_timeout": `"30s"`, "retry_wait_min": `"1s"`, "retry_wait_max": `"20s"`,
	}, 3)
}

// checkDurationErrors validates config and wants exactly n errors, all the provider's duration
// error, naming each attribute in want with its value written with a unit.
func checkDurationErrors(t *testing.T, ws *harness.Workspace, config string, want map[string]string, n int) {
	t.Helper()
	ws.Write("main.tf", config)
	r := ws.Run(context.Background(), "validate", "-json", "-no-color")
	var out struct {
		Diagnostics []struct {
			Severity, Summary, Detail string
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("validate -json: %v\n%s", err, r.Output())
	}
	var errs []string
	for _, d := range out.Diagnostics {
		if d.Severity != "error" {
			continue
		}
		errs = append(errs, d.Summary+": "+d.Detail)
		if strings.Contains(d.Detail, `\n`) || strings.Contains(d.Detail, "Given Value") || d.Summary != "Invalid duration" {
			t.Errorf("not the provider's duration error: %s: %q", d.Summary, d.Detail)
		}
	}
	if len(errs) != n {
		t.Errorf("want %d errors, one per attribute, got %d:\n%s", n, len(errs), strings.Join(errs, "\n"))
	}
	all := strings.Join(errs, "\n")
	for attr, example := range want {
		if !strings.Contains(all, "Attribute "+attr+" must be a Go duration with a unit, such as "+example) {
			t.Errorf("no error names %s with the example %s:\n%s", attr, example, all)
		}
	}
}
