package chaos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const secretsConfig = `
terraform {
  required_providers {
    e2b = { source = "e2b-terraform/e2b" }
  }
}

resource "e2b_sandbox" "s" {
  env_vars = { SANDBOX_SECRET = "sandbox-env-5f1c2e9a7d" }
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
// API key, the envd access token, env var values and the credentials in
// api_url never reach the log, and that envd never received the API key.
func TestChaosSecretsStayOutOfLogs(t *testing.T) {
	ctx := context.Background()
	srv := startEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	ws.Write("main.tf", secretsConfig)
	ws.LogFile = filepath.Join(t.TempDir(), "trace.log")
	// User information in api_url (a proxy's basic auth) is a credential too.
	ws.ExtraEnv = append(ws.ExtraEnv, "E2B_API_URL="+strings.Replace(srv.APIURL(), "http://", "http://urluser-b41d:url-pw-7c3e@", 1))

	mustApply(t, ctx, ws)
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
