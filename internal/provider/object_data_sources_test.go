package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// The single-object data sources find an object by ID and by name; the folder
// listing reads what e2b_volume_file wrote.
func TestAccObjectDataSources(t *testing.T) {
	srv := newTestEmulator(t)
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(hook.Close)
	ctx := context.Background()
	c := testAccClient(t, srv)
	secret, err := c.CreateSecret(ctx, "acc-lookup", "never-in-state", map[string]string{"team": "data"})
	if err != nil {
		t.Fatal(err)
	}
	name, url, sig := "lookup-hook", hook.URL, "sig-secret"
	wh, err := c.CreateWebhook(ctx, e2b.WebhookInput{Name: &name, URL: &url, SignatureSecret: &sig, Events: []string{"sandbox.lifecycle.killed"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testAccProviderBlock(srv) + testAccTestdata(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigVariables: config.Variables{
					"secret_id": config.StringVariable(secret.SecretID), "webhook_id": config.StringVariable(wh.WebhookID),
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.e2b_volume.by_name", tfjsonpath.New("volume_id"), knownvalue.NotNull()),
					statecheck.CompareValuePairs("data.e2b_volume.by_name", tfjsonpath.New("volume_id"),
						"e2b_volume.data", tfjsonpath.New("id"), compareEqual{}),
					statecheck.ExpectKnownValue("data.e2b_volume.by_id", tfjsonpath.New("name"), knownvalue.StringExact("acc-lookup-volume")),
					statecheck.ExpectKnownValue("data.e2b_volume_files.seed", tfjsonpath.New("depth"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("data.e2b_volume_files.seed", tfjsonpath.New("entries"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("a.txt"), "path": knownvalue.StringExact("/seed/a.txt"),
							"type": knownvalue.StringExact("file"), "size": knownvalue.Int64Exact(3), "mode": knownvalue.StringExact("0600"),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("deeper"), "type": knownvalue.StringExact("directory"),
						}),
					})),
					statecheck.ExpectKnownValue("data.e2b_volume_files.root_deep", tfjsonpath.New("entries"), knownvalue.ListSizeExact(4)),
					statecheck.ExpectKnownValue("data.e2b_secret.by_name", tfjsonpath.New("secret_id"), knownvalue.StringExact(secret.SecretID)),
					statecheck.ExpectKnownValue("data.e2b_secret.by_id", tfjsonpath.New("name"), knownvalue.StringExact("acc-lookup")),
					statecheck.ExpectKnownValue("data.e2b_secret.by_id", tfjsonpath.New("metadata"),
						knownvalue.MapExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("data")})),
					statecheck.ExpectKnownValue("data.e2b_webhook.by_name", tfjsonpath.New("id"), knownvalue.StringExact(wh.WebhookID)),
					statecheck.ExpectKnownValue("data.e2b_webhook.by_id", tfjsonpath.New("name"), knownvalue.StringExact("lookup-hook")),
					statecheck.ExpectSensitiveValue("data.e2b_webhook.by_id", tfjsonpath.New("url")),
				},
			},
		},
	})
}

type compareEqual struct{}

func (compareEqual) CompareValues(values ...any) error {
	if len(values) != 2 || values[0] != values[1] {
		return fmt.Errorf("values differ: %v", values)
	}
	return nil
}

func TestAccObjectDataSources_notFoundAndBadInput(t *testing.T) {
	srv := newTestEmulator(t)
	block := func(body string) string { return testAccProviderBlock(srv) + body }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: block(`data "e2b_volume" "x" { name = "nope" }`), ExpectError: regexp.MustCompile(`No such volume`)},
			{Config: block(`data "e2b_secret" "x" { secret_id = "nope" }`), ExpectError: regexp.MustCompile(`No such secret`)},
			{Config: block(`data "e2b_webhook" "x" { name = "nope" }`), ExpectError: regexp.MustCompile(`No such webhook`)},
			{Config: block(`data "e2b_volume" "x" {
  name      = "a"
  volume_id = "b"
}`), ExpectError: regexp.MustCompile(`Invalid Attribute Combination`)},
			{Config: block(`data "e2b_volume_files" "x" {
  volume_id = "v"
  path      = "/a/../b"
}`), ExpectError: regexp.MustCompile(`must not contain`)},
			{Config: block(`data "e2b_volume_files" "x" { volume_id = "missing" }`), ExpectError: regexp.MustCompile(`Folder not found`)},
		},
	})
}
