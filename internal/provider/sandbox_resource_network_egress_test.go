package provider

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/socks5test"
)

// upstream records the headers of every request it answers, by path.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]http.Header
}

func startUpstream(t *testing.T) *upstream {
	u := &upstream{seen: map[string]http.Header{}}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen[r.URL.Path] = r.Header.Clone()
		u.mu.Unlock()
		_, _ = fmt.Fprintln(w, "ok")
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) header(path, name string) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	h, ok := u.seen[path]
	if !ok {
		return "", false
	}
	return h.Get(name), true
}

// A secret's value reaches an upstream only through a rule and only for the rule's domain;
// rotating the secret changes what the upstream receives without replacing the sandbox; an
// identity placeholder is filled; rules and a SOCKS5 proxy (authenticated) change in place; an
// import reads it all back but the password; no secret value or password is in state.
func TestAccSandbox_networkRulesAndEgressProxy(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	ctx := context.Background()
	up := startUpstream(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(up.URL, "http://"))
	const secretName, first, second, password = "acc-rule-token", "value-one-4b1f", "value-two-9c2e", "socks-pass-77d1"
	if _, err := client.CreateSecret(ctx, secretName, first, nil); err != nil {
		t.Fatal(err)
	}
	socks, err := socks5test.Start("sandbox", password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = socks.Close() })

	// localhost carries the rule; 127.0.0.1 reaches the same upstream as another destination.
	config := func(run, header, proxy string) string {
		return testAccRequiredProviders() + testAccProviderBlock(srv) + fmt.Sprintf(`
variable "proxy_password" {
  type      = string
  default   = %[5]q
  sensitive = true
}
resource "e2b_sandbox" "test" {
  timeout = "10m"
  iam     = { ci = { audience = "upstream.test", token_type = "JWT-SVID" } }
  network = {
    allow_out = ["localhost", "127.0.0.1"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "localhost" = {
        headers = {
          %[3]s      = "Bearer ${provider::e2b::secret_ref(%[4]q)}"
          X-Identity = provider::e2b::iam_token_ref("ci")
        }
      }
    }
    %[6]s
  }
}
resource "e2b_sandbox_command" "call" {
  sandbox_id = e2b_sandbox.test.id
  command    = "curl -sS -o /dev/null http://localhost:%[1]s/%[2]s && curl -sS -o /dev/null http://127.0.0.1:%[1]s/%[2]s-other"
}
`, port, run, header, secretName, password, proxy)
	}
	proxyBlock := fmt.Sprintf(`egress_proxy = {
      address             = %q
      username            = "sandbox"
      password_wo         = var.proxy_password
      password_wo_version = 1
    }`, socks.Address())
	received := func(path, header, want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, ok := up.header("/"+path, header)
			if !ok {
				return fmt.Errorf("the upstream never saw /%s", path)
			}
			if got != want {
				return fmt.Errorf("/%s arrived with %s %q, want %q", path, header, got, want)
			}
			if other, ok := up.header("/"+path+"-other", header); !ok || other != "" {
				return fmt.Errorf("the request to 127.0.0.1 (no rule) arrived=%v with %s %q", ok, header, other)
			}
			id, _ := up.header("/"+path, "X-Identity")
			if id == "" || strings.Contains(id, "${") {
				return fmt.Errorf("the identity placeholder was not filled: X-Identity %q", id)
			}
			return nil
		}
	}
	noSecretsInState := func(s *terraform.State) error {
		for _, m := range s.Modules {
			for addr, r := range m.Resources {
				for k, v := range r.Primary.Attributes {
					for _, secret := range []string{first, second, password} {
						if strings.Contains(v, secret) {
							return fmt.Errorf("%s.%s holds a secret value", addr, k)
						}
					}
				}
			}
		}
		return nil
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	id := tfjsonpath.New("id")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config:            config("one", "Authorization", ""),
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, id)},
				Check:             resource.ComposeTestCheckFunc(received("one", "Authorization", "Bearer "+first), noSecretsInState),
			},
			{ // The secret rotates: the same sandbox's next request carries the new value.
				PreConfig: func() {
					if _, err := client.UpdateSecret(ctx, secretName, second, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("two", "Authorization", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionNoop)}},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, id)},
				Check:             received("two", "Authorization", "Bearer "+second),
			},
			{ // Rules and the proxy change in place, in one update; traffic goes through the proxy, logged in.
				Config: config("three", "X-Api-Key", proxyBlock),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(sbAddr, id),
					statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("network").AtMapKey("egress_proxy").AtMapKey("password_wo"), knownvalue.Null()),
				},
				Check: resource.ComposeTestCheckFunc(received("three", "X-Api-Key", "Bearer "+second), noSecretsInState,
					func(*terraform.State) error {
						if !slices.Contains(socks.Logins(), "sandbox:"+password) || len(socks.Destinations()) < 2 {
							return fmt.Errorf("the SOCKS5 proxy saw logins %v and destinations %v", socks.Logins(), socks.Destinations())
						}
						return nil
					}),
			},
			{ // E2B returns rules and the proxy's address; the password stays the configuration's.
				Config:                               config("three", "X-Api-Key", proxyBlock),
				ResourceName:                         sbAddr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "id",
				ImportStateVerifyIgnore: []string{"network.egress_proxy.password_wo_version", "env_vars", "timeouts",
					"metadata", "timeout", "pause_memory", "iam"}, // E2B returns neither iam nor the proxy password
			},
		},
	})
}
