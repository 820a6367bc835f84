package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// What E2B refuses at apply (or at the build's base step) is refused at plan,
// naming the attribute, before any request: names with '.', which passed the
// provider's old rule and failed with E2B's "Invalid template name"; vCPUs
// and memory outside E2B's rules; malformed image references; a relative
// workdir, which E2B's builder does not resolve as Docker does.
func TestAccTemplate_planRefusesWhatE2BRefuses(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := func(name, body string) string {
		return testAccProviderBlock(srv) + fmt.Sprintf("resource \"e2b_template\" \"app\" {\n  name = %q\n%s\n}\n", name, body)
	}
	base := `  from_template = "base"`
	var steps []resource.TestStep
	for _, name := range []string{"a_b.c-d", "a..b", "a.b.", "team.x/app", "My-App", "a/b/c"} {
		steps = append(steps, planErrorStep(cfg(name, base), `(?s)Invalid template name.*name`))
	}
	for _, c := range []struct{ body, want string }{
		{base + "\n  cpu_count = 3", `(?s)Invalid cpu_count.*1 or an even number`},
		{base + "\n  cpu_count = 64", `(?s)Invalid cpu_count.*between 1 and 32`},
		{base + "\n  cpu_count = 0", `(?s)Invalid cpu_count`},
		{base + "\n  memory_mb = 1025", `(?s)Invalid memory_mb.*even`},
		{base + "\n  memory_mb = 64", `(?s)Invalid memory_mb.*at least 128`},
		{`  from_image = "Ubuntu:22.04"`, `(?s)Invalid image reference.*from_image`},
		{`  from_image = "https://ghcr.io/acme/app"`, `(?s)Invalid image reference.*from_image`},
		{`  from_image_registry = {
    image       = "ghcr.io/acme/app:"
    username    = "me"
    password_wo = "secret"
  }`, `(?s)Invalid image reference.*from_image_registry.image`},
		{base + "\n  steps = [{ workdir = \"app\" }]", `(?s)Invalid workdir.*steps\[0\].workdir.*absolute`},
	} {
		steps = append(steps, planErrorStep(cfg("acc-rules", c.body), c.want))
	}
	testAccRefusedWithoutRequests(t, srv, steps)
}
