package provider

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// e2bSignature is E2B's documented signature: unpadded base64 of sha256(secret + body).
func e2bSignature(secret string, body []byte) string {
	sum := sha256.Sum256(append([]byte(secret), body...))
	return strings.TrimRight(base64.StdEncoding.EncodeToString(sum[:]), "=")
}

// A receiver gets signed created/paused/resumed/killed events for a sandbox
// that the test applies, and a receiver that fails twice gets the retries,
// 10 s apart.
func TestAccWebhook_signedLifecycleDeliveries(t *testing.T) {
	srv := newTestEmulator(t)
	ok, flaky := &emulatortest.HookReceiver{}, &emulatortest.HookReceiver{FailFirst: 2}
	okSrv, flakySrv := httptest.NewServer(ok), httptest.NewServer(flaky)
	defer okSrv.Close()
	defer flakySrv.Close()
	const secret = "hook-Secret-51d0"
	t.Setenv("TF_VAR_hook_secret", secret)
	var sandboxID string
	provider := testAccProviderBlock(srv)
	hooks := provider + testAccTestdata(t, "main.tf")
	withBox := provider + testAccTestdata(t, "main.tf", "box.tf")
	vars := func(more config.Variables) config.Variables {
		v := config.Variables{"ok_url": config.StringVariable(okSrv.URL), "fail_url": config.StringVariable(flakySrv.URL)}
		maps.Copy(v, more)
		return v
	}
	paused := func(p bool) config.Variables { return vars(config.Variables{"paused": config.BoolVariable(p)}) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:          hooks,
				ConfigVariables: vars(nil),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_webhook.all", tfjsonpath.New("signature_secret"), knownvalue.Null()),
					statecheck.ExpectKnownValue("e2b_webhook.all", tfjsonpath.New("enabled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.e2b_webhooks.all", tfjsonpath.New("webhooks"), knownvalue.ListSizeExact(2)),
				},
			},
			{
				Config:          withBox,
				ConfigVariables: paused(false),
				Check: func(s *terraform.State) (err error) {
					sandboxID, err = testAccAttr(s, "e2b_sandbox.box", "id")
					return err
				},
			},
			{Config: withBox, ConfigVariables: paused(true)},
			{Config: withBox, ConfigVariables: paused(false)},
			{Config: hooks, ConfigVariables: vars(nil)}, // the sandbox is destroyed: killed
			{
				Config:          provider + testAccTestdata(t, "main.tf", "events.tf"),
				ConfigVariables: vars(nil),
				Check: func(s *terraform.State) error {
					got, err := testAccAttr(s, "data.e2b_sandbox_events.killed", "events.0.sandbox_id")
					if err == nil && got != sandboxID {
						err = fmt.Errorf("newest killed event is of %s, want %s", got, sandboxID)
					}
					return err
				},
			},
			{
				ResourceName:            "e2b_webhook.all",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"signature_secret_version"},
				ConfigVariables:         vars(nil), // the import runs with the configuration above
			},
			{
				// Deliveries are asynchronous and the webhooks must outlive the
				// retries: wait for the four events and the third attempt.
				PreConfig: func() {
					deadline := time.Now().Add(60 * time.Second)
					for time.Now().Before(deadline) && (len(ok.Deliveries()) < 4 || len(flaky.Deliveries()) < 3) {
						time.Sleep(200 * time.Millisecond)
					}
				},
				// Disabling changes it in place.
				Config:          hooks,
				ConfigVariables: vars(config.Variables{"enabled": config.BoolVariable(false)}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_webhook.all", plancheck.ResourceActionUpdate),
				}},
			},
		},
	})

	var mine []emulatortest.Delivery
	for _, d := range ok.Deliveries() {
		if strings.Contains(string(d.Body), sandboxID) {
			mine = append(mine, d)
		}
	}
	seen := map[string]bool{}
	for _, d := range mine {
		if got, want := d.Header.Get("e2b-signature"), e2bSignature(secret, d.Body); got != want {
			t.Fatalf("signature %q does not verify (want %q) for %s", got, want, d.Body)
		}
		if d.Header.Get("e2b-signature-version") != "v1" || d.Header.Get("e2b-webhook-id") == "" || d.Header.Get("e2b-delivery-id") == "" {
			t.Fatalf("missing E2B headers: %v", d.Header)
		}
		var ev struct{ Type, SandboxID string }
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			t.Fatal(err)
		}
		seen[ev.Type] = true
	}
	for _, want := range []string{"created", "paused", "resumed", "killed"} {
		if !seen["sandbox.lifecycle."+want] {
			t.Errorf("the receiver got no %s event for %s (got %d deliveries)", want, sandboxID, len(mine))
		}
	}
	attempts := flaky.Deliveries()
	if len(attempts) < 3 {
		t.Fatalf("the failing receiver got %d attempts, want the first and 2 retries", len(attempts))
	}
	for i := 1; i < 3; i++ {
		if gap := attempts[i].At.Sub(attempts[i-1].At); gap < 9*time.Second {
			t.Errorf("retry %d came %s after the previous attempt; E2B retries 10 s apart", i, gap)
		}
		if attempts[i].Header.Get("e2b-delivery-id") == attempts[i-1].Header.Get("e2b-delivery-id") {
			t.Errorf("retry %d reused the delivery ID", i)
		}
		if attempts[i].Header.Get("e2b-signature") != e2bSignature("flaky-secret", attempts[i].Body) {
			t.Errorf("retry %d is not signed", i)
		}
	}
}

func TestAccWebhook_validation(t *testing.T) {
	srv := newTestEmulator(t)
	for _, tc := range []struct{ body, want string }{
		{`url = "https://x.example"` + "\n  events = [\"sandbox.lifecycle.exploded\"]\n  sensitive_signature_secret = \"s\"", `value must be one of`},
		{`url = "ftp://x.example"` + "\n  events = [\"sandbox.lifecycle.killed\"]\n  sensitive_signature_secret = \"s\"", `http:// or https://`},
		{`url = "https://x.example"` + "\n  events = []\n  sensitive_signature_secret = \"s\"", `at least 1`},
		{`url = "https://x.example"` + "\n  events = [\"sandbox.lifecycle.killed\"]", `(?s)needs its signature\s+secret`},
		{`events = ["sandbox.lifecycle.killed"]` + "\n  sensitive_signature_secret = \"s\"", `(?s)needs the url`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      testAccProviderBlock(srv) + "resource \"e2b_webhook\" \"x\" {\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	testAccCheckNoRequests(t, srv, "invalid webhooks")
}

// A new signature_secret_version sends the new write-only secret; a change
// of anything else leaves the secret E2B has as it is. Neither secret ever
// reaches the state.
func TestAccWebhook_secretVersion(t *testing.T) {
	srv := newTestEmulator(t)
	rec := &emulatortest.HookReceiver{}
	hook := httptest.NewServer(rec)
	defer hook.Close()
	work, logPath := keepWorkAndTraceLog(t)
	const s1, s2, s3 = "rotate-One-3c1e", "rotate-Two-8d02", "rotate-Three-f4a9"
	cfg := func(name string, version int, boxes ...string) string {
		c := testAccProviderBlock(srv) + fmt.Sprintf(`
variable "hook_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}
resource "e2b_webhook" "w" {
  name                     = %q
  url                      = %q
  events                   = ["sandbox.lifecycle.created"]
  signature_secret         = var.hook_secret
  signature_secret_version = %d
}
`, name, hook.URL, version)
		for _, b := range boxes {
			c += fmt.Sprintf("resource \"e2b_sandbox\" %q {\n  timeout    = \"15m\"\n  depends_on = [e2b_webhook.w]\n}\n", b)
		}
		return c
	}
	ids := map[string]string{}
	capture := func(box string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			for addr, rs := range s.RootModule().Resources {
				for k, v := range rs.Primary.Attributes {
					if strings.Contains(v, s1) || strings.Contains(v, s2) || strings.Contains(v, s3) {
						return fmt.Errorf("%s.%s holds the signature secret", addr, k)
					}
				}
			}
			id, err := testAccAttr(s, "e2b_sandbox."+box, "id")
			ids[box] = id
			return err
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { t.Setenv("TF_VAR_hook_secret", s1) },
				Config:    cfg("rotate", 1, "a"),
				Check:     capture("a"),
			},
			{
				PreConfig: func() { t.Setenv("TF_VAR_hook_secret", s2) },
				Config:    cfg("rotate", 2, "a", "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_webhook.w", plancheck.ResourceActionUpdate),
				}},
				Check: capture("b"),
			},
			{
				// The secret changes but its version does not: not sent.
				PreConfig: func() { t.Setenv("TF_VAR_hook_secret", s3) },
				Config:    cfg("renamed", 2, "a", "b", "c"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_webhook.w", plancheck.ResourceActionUpdate),
				}},
				Check: capture("c"),
			},
		},
	})
	checkSecretsNowhere(t, work, logPath, "e2b_webhook", s1, s2, s3)
	want := map[string]string{"a": s1, "b": s2, "c": s2}
	deadline := time.Now().Add(30 * time.Second)
	for box, secret := range want {
		for {
			var got *emulatortest.Delivery
			for _, d := range rec.Deliveries() {
				if strings.Contains(string(d.Body), ids[box]) {
					got = &d
					break
				}
			}
			if got != nil {
				if sig := got.Header.Get("e2b-signature"); sig != e2bSignature(secret, got.Body) {
					t.Errorf("sandbox %s's created event is not signed with the secret of its time (%q)", box, secret)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no created event for sandbox %s (%s)", box, ids[box])
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
