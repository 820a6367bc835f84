package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Network rules and the egress proxy that E2B would refuse, or that could never apply, are
// errors at plan time that name the attribute, with no request made.
func TestAccSandbox_networkRulesRefusedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	network := func(body string) string {
		return "iam = { aws = { audience = \"sts.amazonaws.com\", token_type = \"JWT-SVID\" } }\nnetwork = {\n" + body + "\n}"
	}
	const lockedDown = `allow_out = ["api.example.com"]
deny_out = ["0.0.0.0/0"]
`
	cases := []struct{ name, body, want string }{
		{"domain not admitted", `allow_out = ["1.1.1.1"]
deny_out = ["0.0.0.0/0"]
rules = { "api.example.com" = { headers = { X = "y" } } }`, `(?s)rule for "api.example.com", but network.allow_out does not admit it`},
		{"no allow_out", `rules = { "api.example.com" = { headers = { X = "y" } } }`, `allow_out does not admit it`},
		{"upper-case domain", lockedDown + `rules = { "API.example.com" = { headers = { X = "y" } } }`, `write "api.example.com"`},
		{"bare wildcard", lockedDown + `rules = { "*" = { headers = { X = "y" } } }`, `must be a domain`},
		{"bad header name", lockedDown + `rules = { "api.example.com" = { headers = { "Bad Header" = "y" } } }`, `must be an HTTP header name`},
		{"no headers", lockedDown + `rules = { "api.example.com" = { headers = {} } }`, `(?s)headers.*at least 1`},
		{"undeclared token", lockedDown + `rules = { "api.example.com" = { headers = { Authorization = provider::e2b::iam_token_ref("gcp") } } }`,
			`workload token "gcp", which the sandbox's iam does not declare`},
		{"malformed placeholder", lockedDown + `rules = { "api.example.com" = { headers = { Authorization = "$${e2b.secret.x}" } } }`, `is neither`},
		{"impossible secret name", lockedDown + `rules = { "api.example.com" = { headers = { Authorization = "$${e2b.secrets.a/b}" } } }`, `names no possible secret`},
		{"proxy without port", `egress_proxy = { address = "proxy.example.com" }`, `must be host:port`},
		{"proxy port out of range", `egress_proxy = { address = "proxy.example.com:70000" }`, `port between 1 and 65535`},
		// SOCKS5 sends username and password together: a proxy handed a password alone sees no
		// authentication offered, and the sandbox's requests fail.
		{"proxy password without username", `egress_proxy = { address = "proxy.example.com:1080", password_wo = "pw", password_wo_version = 1 }`,
			`(?s)network.egress_proxy.password_wo is set but network.egress_proxy.username is not.*needs a username`},
		// HTTP header names are case-insensitive: which of the two values the destination receives
		// would vary by request.
		{"headers differing in case", lockedDown + `rules = { "api.example.com" = { headers = { Authorization = "a", authorization = "b" } } }`,
			`(?s)network.rules\["api.example.com"\].headers: headers "Authorization" and "authorization" name the same header`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      sandboxConfig(srv, network(c.body)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(strings.ReplaceAll(c.want, " ", `\s+`)), // messages wrap
		})
	}
	testAccRefusedWithoutRequests(t, srv, steps)
}

// The functions give E2B's placeholders; a name that cannot be one is an error.
func TestAccFunction_iamTokenRef(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testAccRequiredProviders() + `output "ref" { value = provider::e2b::iam_token_ref("aws") }`,
				Check:  resource.TestCheckOutput("ref", "${e2b.identity.tokens.aws}"),
			},
			{
				Config:      testAccRequiredProviders() + `output "ref" { value = provider::e2b::iam_token_ref("a}b") }`,
				ExpectError: regexp.MustCompile(`must not contain`),
			},
		},
	})
}

// The ephemeral sandbox refuses the same: a proxy password (a plain sensitive attribute there)
// without a username, and a rule's headers differing only in case; nothing is opened.
func TestAccEphemeralSandbox_networkCredentialsAndHeadersRefused(t *testing.T) {
	srv := newTestEmulator(t)
	eph := func(network string) string {
		return testAccProviderBlock(srv) + `
ephemeral "e2b_sandbox" "s" {
  network = {
` + network + `
  }
}
`
	}
	steps := []resource.TestStep{
		planErrorStep(eph(`egress_proxy = { address = "proxy.example.com:1080", password = "pw" }`),
			`(?s)network.egress_proxy.password is set but network.egress_proxy.username is not`),
		planErrorStep(eph(`allow_out = ["api.example.com"]
deny_out = ["0.0.0.0/0"]
rules = { "api.example.com" = { headers = { "X-Key" = "a", "x-key" = "b" } } }`),
			`(?s)headers "X-Key" and "x-key" name the same header`),
	}
	for i := range steps {
		steps[i].PlanOnly = false
		steps[i].ExpectError = regexp.MustCompile(strings.ReplaceAll(steps[i].ExpectError.String(), " ", `\s+`)) // messages wrap
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
	testAccCheckNoRequests(t, srv, "refused input")
}
