package chaos

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const secretsConfig = harness.RequiredProviders + `
variable "proxy_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "e2b_sandbox" "s" {
  env_vars = { SANDBOX_SECRET = "sandbox-env-5f1c2e9a7d" }
  # Sensitive and of a custom type (JSON that compares as JSON): the framework logs such values
  # around its semantic-equality calls, on refresh, plan and apply.
  mcp = jsonencode({ github = { githubPersonalAccessToken = "mcp-token-2d9f61" } })
  network = {
    allow_out = ["api.example.com"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "api.example.com" = { headers = { X-Api-Key = "rule-header-0c6e1a" } }
    }
    egress_proxy = {
      address             = "127.0.0.1:1080"
      username            = "sandbox"
      password_wo         = var.proxy_password
      password_wo_version = 1
    }
  }
}

resource "e2b_sandbox_file" "f" {
  sandbox_id = e2b_sandbox.s.id
  path       = "hello.txt"
  content    = "hello\n"
}

resource "e2b_sandbox_command" "c" {
  sandbox_id = e2b_sandbox.s.id
  command    = "test -n \"$SANDBOX_SECRET\" && test -n \"$COMMAND_SECRET\" && cat hello.txt"
  env        = { COMMAND_SECRET = "command-env-93b0d4e611" }
}
`

// TestChaosSecretsStayOutOfLogs applies with TF_LOG=TRACE and checks that the
// API key, the envd access token, env var values, the credentials in api_url,
// a network rule's header value, the egress proxy's password and mcp (every sensitive
// attribute of a custom type: TestSensitiveCustomTypesNeverPrintTheirValue finds them) never reach
// the log (nor the password a plan file), and that envd never received the API key.
func TestChaosSecretsStayOutOfLogs(t *testing.T) {
	ctx := context.Background()
	srv, ws := chaosWorkspace(t, secretsConfig)
	ws.LogFile = filepath.Join(t.TempDir(), "trace.log")
	// User information in api_url (a proxy's basic auth) is a credential too.
	ws.ExtraEnv = append(ws.ExtraEnv, "E2B_API_URL="+strings.Replace(srv.APIURL(), "http://", "http://urluser-b41d:url-pw-7c3e@", 1),
		"TF_VAR_proxy_password=socks-password-4e8b27")

	mustApply(t, ctx, ws)
	// A plan file holds configuration values too; the proxy password is write-only.
	ws.Write("main.tf", strings.Replace(secretsConfig, "hello\n", "hello again\n", 1))
	if r := ws.Run(ctx, "plan", "-no-color", "-input=false", "-out=tfplan"); r.Err != nil {
		t.Fatalf("plan: %v\n%s", r.Err, r.Output())
	}
	plan := planFileText(t, filepath.Join(ws.Dir, "tfplan"))
	if !strings.Contains(plan, "rule-header-0c6e1a") {
		t.Fatal("the plan file does not hold the configuration's values: the check would prove nothing")
	}
	if strings.Contains(plan, "socks-password-4e8b27") {
		t.Error("the egress proxy password is in the plan file")
	}
	var token string
	for _, r := range ws.State(ctx) {
		if r.Type == "e2b_sandbox" {
			token, _ = r.Values["envd_access_token"].(string)
		}
	}
	if token == "" {
		t.Fatal("the sandbox has no envd_access_token in state; secure sandboxes must have one")
	}
	destroyAndCheck(t, ctx, ws, srv)

	raw, err := os.ReadFile(ws.LogFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	if !strings.Contains(log, "provider") || len(log) < 10_000 {
		t.Fatalf("the trace log looks empty (%d bytes): the check would prove nothing", len(log))
	}
	for name, secret := range map[string]string{
		"API key":               srv.APIKey(),
		"envd access token":     token,
		"sandbox env var value": "sandbox-env-5f1c2e9a7d",
		"command env var value": "command-env-93b0d4e611",
		"api_url user":          "urluser-b41d",
		"api_url password":      "url-pw-7c3e",
		"egress proxy password": "socks-password-4e8b27",
		"rule header value":     "rule-header-0c6e1a",
		"mcp server token":      "mcp-token-2d9f61",
	} {
		if i := strings.Index(log, secret); i >= 0 {
			start := max(0, i-200)
			t.Errorf("the %s appears in the TRACE log: …%s…", name, log[start:min(len(log), i+len(secret)+50)])
		}
	}
	if n := srv.Counters().EnvdAPIKeySeen; n != 0 {
		t.Errorf("envd received the API key in %d requests", n)
	}
}

// planFileText is every file of a plan file (a zip archive) uncompressed, one after another,
// but the copy of the configuration's source it carries.
func planFileText(t *testing.T, path string) string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var all strings.Builder
	for _, f := range z.File {
		if strings.HasPrefix(f.Name, "tfconfig/") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		_ = r.Close()
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}
