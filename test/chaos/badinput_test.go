package chaos

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// badInput is one invalid configuration and what its diagnostic must say.
type badInput struct {
	name string
	hcl  string
	want string // regexp matched against the diagnostics, without the echoed config lines
}

// A plain sandbox ID that passes syntax checks; nothing may be called anyway.
const someID = "iabcdefghij0123456789"

var badInputs = []badInput{
	// e2b_sandbox
	{"timeout zero", `resource "e2b_sandbox" "s" { timeout = "0s" }`, `(?s)timeout.*1s.*24h`},
	{"timeout beyond a day", `resource "e2b_sandbox" "s" { timeout = "24h1s" }`, `(?s)timeout.*24h`},
	{"timeout not a duration", `resource "e2b_sandbox" "s" { timeout = "soon" }`, `(?i)duration`},
	{"timeout in seconds without a unit", `resource "e2b_sandbox" "s" { timeout = 300 }`, `(?i)attribute timeout must be a Go duration with a unit, such as "300s"`},
	{"empty template", `resource "e2b_sandbox" "s" { template = "" }`, `(?i)template`},
	{"template with spaces", `resource "e2b_sandbox" "s" { template = "my template" }`, `(?i)template`},
	{"template with two tags", `resource "e2b_sandbox" "s" { template = "a:b:c" }`, `(?i)template`},
	{"unknown attribute", `resource "e2b_sandbox" "s" { colour = "blue" }`, `(?i)unsupported argument`},
	{"metadata key too long", `resource "e2b_sandbox" "s" { metadata = { "` + strings.Repeat("k", 300) + `" = "v" } }`, `(?i)metadata`},
	{"metadata value too long", `resource "e2b_sandbox" "s" { metadata = { k = "` + strings.Repeat("v", 5000) + `" } }`, `(?i)metadata`},
	{"too many metadata entries", `resource "e2b_sandbox" "s" { metadata = { ` + manyPairs(120) + ` } }`, `(?i)metadata`},
	{"metadata reserved key", `resource "e2b_sandbox" "s" { metadata = { "e2b-terraform-create-token" = "x" } }`, `(?i)reserved|e2b-terraform-create-token`},
	{"env var bad name", `resource "e2b_sandbox" "s" { env_vars = { "1BAD" = "x" } }`, `(?i)env_vars|variable name`},
	{"env var name with equals", `resource "e2b_sandbox" "s" { env_vars = { "A=B" = "x" } }`, `(?i)env_vars|variable name`},
	{"deny_out with a domain", `resource "e2b_sandbox" "s" { network = { deny_out = ["example.com"] } }`, `(?i)deny_out`},
	{"allow_out malformed CIDR", `resource "e2b_sandbox" "s" { network = { allow_out = ["10.0.0.0/33"] } }`, `(?i)allow_out`},
	{"allow_out bad IP", `resource "e2b_sandbox" "s" { network = { allow_out = ["300.1.1.1"] } }`, `(?i)allow_out`},
	{"allow_out domain without deny all", `resource "e2b_sandbox" "s" { network = { allow_out = ["example.com"] } }`, `(?i)0\.0\.0\.0/0`},
	{"private traffic without secure", `resource "e2b_sandbox" "s" {
  secure  = false
  network = { allow_public_traffic = false }
}`, `(?i)secure`},
	{"mask_request_host malformed", `resource "e2b_sandbox" "s" { network = { mask_request_host = "bad host:port:x" } }`, `(?i)must be a host name`},
	{"timeout not whole", `resource "e2b_sandbox" "s" { timeout = "90.5s" }`, `(?i)whole seconds`},
	// provider
	{"api_url not http", `provider "e2b" { api_url = "ftp://example.com" }
resource "e2b_sandbox" "s" {}`, `(?i)http:// or https://`},
	{"negative retries", `provider "e2b" { max_retries = -1 }
resource "e2b_sandbox" "s" {}`, `(?i)max_retries`},
	{"zero request timeout", `provider "e2b" { request_timeout = "0s" }
resource "e2b_sandbox" "s" {}`, `(?i)request_timeout`},
	{"retry waits crossed", `provider "e2b" {
  retry_wait_min = "5s"
  retry_wait_max = "1s"
}
resource "e2b_sandbox" "s" {}`, `(?i)retry_wait_min.*retry_wait_max`},
	{"default_metadata too long", `provider "e2b" { default_metadata = { k = "` + strings.Repeat("v", 5000) + `" } }
resource "e2b_sandbox" "s" {}`, `(?i)metadata`},
	// e2b_sandbox_file
	{"two content sources", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = "/home/user/a"
  content    = "x"
  source     = "main.tf"
}`, `(?i)content|source`},
	{"no content source", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = "/home/user/a"
}`, `(?i)content|source`},
	{"relative source missing", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = "/home/user/a"
  source     = "does/not/exist.txt"
}`, `(?i)does/not/exist\.txt`},
	{"source is a device", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = "/home/user/a"
  source     = "/dev/zero"
}`, `(?i)regular file`},
	{"path names a directory", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = "/tmp/.."
  content    = "x"
}`, `(?i)must name a file`},
	{"NUL in path", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = "/home/user/a\u0000b"
  content    = "x"
}`, `(?i)control characters`},
	{"empty path", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "` + someID + `"
  path       = ""
  content    = "x"
}`, `(?i)path`},
	{"missing sandbox_id", `resource "e2b_sandbox_file" "f" {
  path    = "/home/user/a"
  content = "x"
}`, `(?i)sandbox_id`},
	{"malformed sandbox_id", `resource "e2b_sandbox_file" "f" {
  sandbox_id = "not an id!"
  path       = "/home/user/a"
  content    = "x"
}`, `(?i)E2B sandbox ID`},
	// e2b_sandbox_command
	{"empty command", `resource "e2b_sandbox_command" "c" {
  sandbox_id = "` + someID + `"
  command    = ""
}`, `(?i)command`},
	{"negative command timeout", `resource "e2b_sandbox_command" "c" {
  sandbox_id = "` + someID + `"
  command    = "true"
  timeout    = "-5s"
}`, `(?i)timeout`},
	{"zero output budget", `resource "e2b_sandbox_command" "c" {
  sandbox_id = "` + someID + `"
  command    = "true"
  max_output_bytes = 0
}`, `(?i)max_output_bytes`},
	// data sources and functions
	{"logs direction unknown", `data "e2b_sandbox_logs" "l" {
  sandbox_id = "` + someID + `"
  direction  = "sideways"
}`, `(?i)forward|backward`},
	{"logs level unknown", `data "e2b_sandbox_logs" "l" {
  sandbox_id = "` + someID + `"
  level      = "loud"
}`, `(?i)debug|info|warn|error`},
	{"logs limit above E2B's page", `data "e2b_sandbox_logs" "l" {
  sandbox_id = "` + someID + `"
  limit      = 5000
}`, `(?i)1000`},
	{"sandboxes state unknown", `data "e2b_sandboxes" "all" { states = ["sleeping"] }`, `(?i)running|paused`},
	{"sandboxes started_after not a time", `data "e2b_sandboxes" "all" { started_after = "yesterday" }`, `(?i)RFC ?3339`},
	{"sandbox_host port out of range", `output "h" { value = provider::e2b::sandbox_host("` + someID + `", 70000) }`, `(?i)65535`},
	// e2b_snapshot
	{"snapshot without sandbox", `resource "e2b_snapshot" "s" { name = "x" }`, `(?i)sandbox_id`},
}

func manyPairs(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("k")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a'+i%26)) + string(rune('a'+i/26)))
		b.WriteString(` = "v"` + "\n")
	}
	return b.String()
}

// echoedConfig matches the lines OpenTofu prints to show where an error is,
// which repeat the configuration and would make any pattern match.
var echoedConfig = regexp.MustCompile(`(?m)^\s*(\d+:|on main\.tf line|with [a-z0-9_.\[\]"]+,|├|│\s*\d+:).*$`)

// TestChaosBadInput: every invalid configuration is rejected before any
// request reaches E2B, with a message that names what is wrong.
func TestChaosBadInput(t *testing.T) {
	if len(badInputs) < 30 {
		t.Fatalf("the table must hold at least 30 cases, has %d", len(badInputs))
	}
	srv := startEmulator(t)
	ctx := context.Background()
	for _, tc := range badInputs {
		t.Run(tc.name, func(t *testing.T) {
			ws := harness.NewWorkspace(t, srv)
			ws.Write("main.tf", harness.RequiredProviders+tc.hcl+"\n")
			r := ws.Run(ctx, "plan", "-no-color", "-input=false")
			if r.Err == nil {
				t.Fatalf("plan accepted an invalid configuration:\n%s", r.Output())
			}
			diags := echoedConfig.ReplaceAllString(r.Stderr, "")
			if !regexp.MustCompile(tc.want).MatchString(diags) {
				t.Fatalf("diagnostic does not match %q:\n%s", tc.want, r.Stderr)
			}
			if strings.Contains(r.Output(), "panic") {
				t.Fatalf("provider crashed:\n%s", r.Output())
			}
		})
	}
	c := srv.Counters()
	total := 0
	for route, n := range c.Requests {
		t.Errorf("invalid configurations reached the emulator: %s ×%d", route, n)
		total += n
	}
	if c.SandboxesCreated != 0 || total != 0 {
		t.Fatalf("requests were made for invalid input: %d requests, %d sandboxes created", total, c.SandboxesCreated)
	}
}
