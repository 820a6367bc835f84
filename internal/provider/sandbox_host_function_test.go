package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestSandboxHost(t *testing.T) {
	cases := []struct {
		id      string
		port    int64
		domains []string
		want    string
		wantErr string
	}{
		{"i1a2b3", 3000, nil, "3000-i1a2b3.e2b.app", ""},
		{"i1a2b3", 49983, []string{"e2b.example.com"}, "49983-i1a2b3.e2b.example.com", ""},
		{"i1a2b3", 80, []string{"e2b.dev."}, "80-i1a2b3.e2b.dev", ""},
		{"i1a2b3", 0, nil, "", "port must be between 1 and 65535"},
		{"i1a2b3", 65536, nil, "", "port must be between 1 and 65535"},
		{"", 80, nil, "", "is not a sandbox ID"},
		{"a.b", 80, nil, "", "is not a sandbox ID"},
		{"i1a2b3", 80, []string{"https://e2b.app"}, "", "is not a domain name"},
		{"i1a2b3", 80, []string{"a", "b"}, "", "at most one domain"},
	}
	for _, c := range cases {
		got, err := sandboxHost(c.id, c.port, c.domains)
		switch {
		case c.wantErr != "":
			if err == nil || !regexp.MustCompile(regexp.QuoteMeta(c.wantErr)).MatchString(err.Error()) {
				t.Errorf("sandboxHost(%q, %d, %v) error = %v, want %q", c.id, c.port, c.domains, err, c.wantErr)
			}
		case err != nil || got != c.want:
			t.Errorf("sandboxHost(%q, %d, %v) = %q, %v; want %q", c.id, c.port, c.domains, got, err, c.want)
		}
	}
}

// The function through a real CLI (OpenTofu 1.7+ and Terraform 1.8+ have provider functions).
func TestAccSandboxHostFunction(t *testing.T) {
	resource.ParallelTest(t, testAccFunctionCase([]resource.TestStep{
		{
			Config: `
output "default_domain" {
  value = provider::e2b::sandbox_host("i1a2b3", 3000)
}

output "url" {
  value = "https://${provider::e2b::sandbox_host("i1a2b3", 8080, "e2b.example.com")}/health"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("default_domain", knownvalue.StringExact("3000-i1a2b3.e2b.app")),
				statecheck.ExpectKnownOutputValue("url", knownvalue.StringExact("https://8080-i1a2b3.e2b.example.com/health")),
			},
		},
		{
			Config: `
output "bad" {
  value = provider::e2b::sandbox_host("i1a2b3", 70000)
}
`,
			ExpectError: regexp.MustCompile(`port must be between 1 and 65535, got\s+70000`),
		},
	}))
}
