package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// A sandbox with mcp starts from E2B's mcp-gateway template and gets its gateway started as
// E2B's SDK does: the gateway keeps a fresh token in the sandbox, which state never holds;
// mcp_url names the gateway's port.
func TestAccSandbox_mcpGatewayStarted(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	cfg := sandboxConfig(srv, `timeout = "10m"
mcp = jsonencode({ github = { githubPersonalAccessToken = "placeholder" } })`)
	var token string
	gateway := func(s *terraform.State) error {
		id, err := testAccAttr(s, sbAddr, "id")
		if err != nil {
			return err
		}
		root := client.Envd(e2b.EnvdTarget{SandboxID: id, AccessToken: s.RootModule().Resources[sbAddr].Primary.Attributes["envd_access_token"], User: "root"})
		for file, check := range map[string]func(string) error{
			"/etc/mcp-gateway/.token": func(v string) error {
				if len(v) < 16 {
					return fmt.Errorf("the gateway's token is %q", v)
				}
				token = v
				return nil
			},
			"/etc/mcp-gateway/config.json": func(v string) error {
				var cfg map[string]any
				if err := json.Unmarshal([]byte(v), &cfg); err != nil || cfg["github"] == nil {
					return fmt.Errorf("the gateway got the configuration %q", v)
				}
				return nil
			},
		} {
			r, err := root.ReadFile(context.Background(), file, e2b.ReadOptions{})
			if err != nil {
				return fmt.Errorf("read %s: %w", file, err)
			}
			b, _ := io.ReadAll(r)
			_ = r.Close()
			if err := check(string(b)); err != nil {
				return err
			}
		}
		for addr, r := range s.RootModule().Resources {
			for k, v := range r.Primary.Attributes {
				if token != "" && strings.Contains(v, token) {
					return fmt.Errorf("%s.%s holds the gateway's token", addr, k)
				}
			}
		}
		return nil
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("template"), knownvalue.StringExact("mcp-gateway")),
					statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("mcp_url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://50005-[a-z0-9]+\..+/mcp$`))),
				},
				Check: gateway,
			},
			{ // The token reaches another resource through the ephemeral access, never through state.
				Config: cfg + `
ephemeral "e2b_sandbox_access" "a" {
  sandbox_id = e2b_sandbox.test.id
}
resource "e2b_sandbox_command" "token" {
  sandbox_id = e2b_sandbox.test.id
  env_wo     = { T = ephemeral.e2b_sandbox_access.a.mcp_token, U = ephemeral.e2b_sandbox_access.a.mcp_url }
  command    = "test $${#T} -ge 16 && case \"$U\" in https://50005-*/mcp) echo ok ;; *) exit 3 ;; esac"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_sandbox_command.token", tfjsonpath.New("stdout"), knownvalue.StringExact("ok\n")),
				},
				Check: gateway,
			},
		},
	})
}
