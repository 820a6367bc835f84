package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// keptCreateRoutes are the creates of every object E2B keeps.
var keptCreateRoutes = []string{"POST /v2/sandboxes", "POST /volumes", "POST /secrets", "POST /events/webhooks", "POST /sandboxes/{id}/snapshots"}

// keptObjectsConfig makes one object of every kind E2B keeps.
func keptObjectsConfig(srv *emulator.Server) string {
	return testAccProviderBlock(srv) + `
resource "e2b_volume" "v" {
  name = "kept-volume"
}
resource "e2b_secret" "s" {
  name            = "kept-secret"
  sensitive_value = "s3cret"
  metadata        = { owner = "acc" }
}
resource "e2b_webhook" "w" {
  name                       = "kept-webhook"
  url                        = "http://127.0.0.1:9/hook"
  events                     = ["sandbox.lifecycle.killed"]
  sensitive_signature_secret = "hook-secret"
}
resource "e2b_sandbox" "sb" {
  timeout = "15m"
}
resource "e2b_snapshot" "named" {
  sandbox_id = e2b_sandbox.sb.id
  name       = "kept-snapshot"
}
resource "e2b_snapshot" "unnamed" {
  sandbox_id = e2b_sandbox.sb.id
  depends_on = [e2b_snapshot.named]
}
`
}

// keptObjects lists, by resource type, the IDs of every object E2B keeps.
func keptObjects(ctx context.Context, c *e2b.Client) (map[string][]string, error) {
	out := map[string][]string{}
	vols, err := c.ListVolumes(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range vols {
		out["e2b_volume"] = append(out["e2b_volume"], v.VolumeID)
	}
	secrets, err := c.ListSecrets(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range secrets {
		out["e2b_secret"] = append(out["e2b_secret"], s.SecretID)
	}
	hooks, err := c.ListWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	for _, w := range hooks {
		out["e2b_webhook"] = append(out["e2b_webhook"], w.WebhookID)
	}
	snaps, err := c.ListSnapshots(ctx, e2b.ListSnapshotsParams{})
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		out["e2b_snapshot"] = append(out["e2b_snapshot"], s.SnapshotID)
	}
	sandboxes, err := c.ListSandboxes(ctx, e2b.ListSandboxesParams{States: []string{e2b.SandboxStateRunning, e2b.SandboxStatePaused}})
	if err != nil {
		return nil, err
	}
	for _, s := range sandboxes {
		out["e2b_sandbox"] = append(out["e2b_sandbox"], s.SandboxID)
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out, nil
}

// testAccCheckKeptMatchState: E2B keeps exactly what state records, one of
// each (no orphan, no duplicate).
func testAccCheckKeptMatchState(t *testing.T, srv *emulator.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		inState := map[string][]string{}
		for _, rs := range s.RootModule().Resources {
			inState[rs.Type] = append(inState[rs.Type], rs.Primary.ID)
		}
		for _, ids := range inState {
			sort.Strings(ids)
		}
		kept, err := keptObjects(context.Background(), testAccClient(t, srv))
		if err != nil {
			return err
		}
		for _, typ := range []string{"e2b_volume", "e2b_secret", "e2b_webhook", "e2b_sandbox", "e2b_snapshot"} {
			if !slices.Equal(kept[typ], inState[typ]) {
				return fmt.Errorf("%s: E2B keeps %v, state records %v", typ, kept[typ], inState[typ])
			}
		}
		return nil
	}
}

// testAccCheckNothingKept: after destroy E2B keeps none of the objects.
func testAccCheckNothingKept(t *testing.T, srv *emulator.Server, except ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		kept, err := keptObjects(context.Background(), testAccClient(t, srv))
		if err != nil {
			return err
		}
		for typ, ids := range kept {
			ids = slices.DeleteFunc(ids, func(id string) bool { return slices.Contains(except, id) })
			if len(ids) > 0 {
				return fmt.Errorf("%s left behind after destroy: %v", typ, ids)
			}
		}
		return nil
	}
}

// TestAccKeptObjects_lostCreateAnswers: E2B makes every object and every
// create's answer is lost, by a cut connection or a gateway's 504. The apply
// succeeds, state records each object once, E2B keeps nothing else, and
// destroy leaves nothing.
func TestAccKeptObjects_lostCreateAnswers(t *testing.T) {
	for _, how := range []string{emulator.LostDrop, emulator.LostGateway} {
		t.Run(how, func(t *testing.T) {
			srv := newTestEmulator(t)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             testAccCheckNothingKept(t, srv),
				Steps: []resource.TestStep{{
					PreConfig: func() {
						srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{how}, Routes: keptCreateRoutes})
					},
					Config: keptObjectsConfig(srv),
					Check: resource.ComposeTestCheckFunc(
						func(*terraform.State) error {
							srv.SetFaults(emulator.Faults{})
							for _, route := range keptCreateRoutes {
								want := 1
								if route == "POST /sandboxes/{id}/snapshots" {
									want = 2
								}
								if n := srv.Counters().Requests[route]; n != want {
									return fmt.Errorf("%s sent %d times, want %d: a lost answer must be settled, not sent again", route, n, want)
								}
							}
							if srv.Counters().FaultsInjected != 6 {
								return fmt.Errorf("%d answers lost, want 6", srv.Counters().FaultsInjected)
							}
							return nil
						},
						testAccCheckKeptMatchState(t, srv),
					),
				}},
			})
		})
	}
}

// TestAccKeptObjects_existingNamesAreNotTakenOver: a volume and a secret
// that exist before the apply are never adopted, also when E2B's refusal is
// lost; the error names them and how to import them, and importing works.
func TestAccKeptObjects_existingNamesAreNotTakenOver(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	ctx := context.Background()
	vol, err := client.CreateVolume(ctx, "theirs")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := client.CreateSecret(ctx, "theirs", "their-value", nil)
	if err != nil {
		t.Fatal(err)
	}
	volume := `
resource "e2b_volume" "v" {
  name = "theirs"
}
`
	secret := `
resource "e2b_secret" "s" {
  name            = "theirs"
  sensitive_value = "my-value"
}
`
	loseRefusals := func() {
		srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{emulator.LostGateway}, Routes: []string{"POST /volumes", "POST /secrets"}})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNothingKept(t, srv),
		Steps: []resource.TestStep{
			{
				PreConfig:   loseRefusals,
				Config:      testAccProviderBlock(srv) + volume,
				ExpectError: regexp.MustCompile(`(?s)Volume already exists.*` + vol.VolumeID + `.*terraform import <address>\s+` + vol.VolumeID),
			},
			{
				PreConfig:   loseRefusals,
				Config:      testAccProviderBlock(srv) + secret,
				ExpectError: regexp.MustCompile(`(?s)Secret already exists.*` + sec.SecretID + `.*terraform import <address>\s+` + sec.SecretID),
			},
			{
				PreConfig: func() {
					srv.SetFaults(emulator.Faults{})
					kept, err := keptObjects(ctx, client)
					if err != nil || len(kept["e2b_volume"]) != 1 || len(kept["e2b_secret"]) != 1 {
						t.Errorf("after the refused creates E2B keeps %v (%v): want their volume and secret alone", kept, err)
					}
				},
				Config: testAccRequiredProviders() + testAccProviderBlock(srv) + volume + secret + fmt.Sprintf(`
import {
  to = e2b_volume.v
  id = %q
}
import {
  to = e2b_secret.s
  id = %q
}
`, vol.VolumeID, sec.SecretID),
				Check: testAccCheckKeptMatchState(t, srv),
			},
		},
	})
}
