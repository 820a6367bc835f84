package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// Acceptance tests run against an in-process emulator on a random port. With E2B_LIVE=1 the
// tests that make sense against real E2B run there instead, using E2B_API_KEY; they fail (never
// skip) when the key is missing, and emulator-only tests skip with a reason.

// testAccProtoV6ProviderFactories serves the provider in-process to the Terraform CLI.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"e2b": ProtocolServer(New("test")()),
}

// testAccLive reports whether tests target real E2B.
func testAccLive() bool { return os.Getenv("E2B_LIVE") == "1" }

// testAccPreCheck stops a live run that has no API key, loudly.
func testAccPreCheck(t *testing.T) {
	t.Helper()
	if testAccLive() && os.Getenv(envAPIKey) == "" {
		t.Fatal("E2B_LIVE=1 runs the acceptance tests against real E2B and needs E2B_API_KEY; it is not set")
	}
}

// testAccCase is the case an acceptance test runs: a live run without a key stops loudly, the
// provider is served in-process, and checkDestroy (nil: none) checks what destroy left behind.
func testAccCase(t *testing.T, checkDestroy resource.TestCheckFunc, steps []resource.TestStep) resource.TestCase {
	return resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy,
		Steps:                    steps,
	}
}

// testAccFunctionCase is the case of a provider function's test: no emulator, and a skip below
// version 1.8, since provider functions came with Terraform 1.8.
func testAccFunctionCase(steps []resource.TestStep) resource.TestCase {
	return resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps:                    steps,
	}
}

// newTestEmulator starts an emulator for one test; it is closed when the test ends. Tests that
// need the emulator's controls (faults, expiry, counters, seeding) call it and skip in live mode.
func newTestEmulator(t *testing.T) *emulator.Server {
	t.Helper()
	return newTestEmulatorWith(t, emulator.Options{})
}

// newTestEmulatorWith is newTestEmulator with options, e.g. the images a build may take from the
// host. It starts it as the emulator's own tests do, which log what it says through t.Logf.
func newTestEmulatorWith(t *testing.T, opts emulator.Options) *emulator.Server {
	t.Helper()
	testAccPreCheck(t) // A live run without a key fails here too, never skips.
	if testAccLive() {
		t.Skip("needs the emulator's test controls (seeding, faults, expiry or counters), which real E2B does not have")
	}
	return emulatortest.Start(t, withTestSandboxRoutes(t, opts)).Srv
}

// envTestSandboxRoutes switches off one set of the test emulators' sandbox routes for a whole
// run: "v2" (the v1 create, connect and fork routes answer 404, as an E2B that has retired
// them) or "v1" (the /v2 ones do, as an older self-hosted E2B). Unset: both are served.
const envTestSandboxRoutes = "E2B_TEST_EMULATOR_SANDBOX_ROUTES"

// testSandboxRoutesV1Off reports a run whose emulators serve no v1 create, connect or fork.
func testSandboxRoutesV1Off() bool { return os.Getenv(envTestSandboxRoutes) == "v2" }

// skipWhereV2RoutesOff skips a test of what only E2B's v2 sandbox routes do in a run whose
// emulators serve no v2.
func skipWhereV2RoutesOff(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(envTestSandboxRoutes) == "v1" {
		t.Skip(what + " needs E2B's v2 sandbox routes, and " + envTestSandboxRoutes + "=v1 switched them off")
	}
}

// withTestSandboxRoutes applies envTestSandboxRoutes to opts; a test that sets a switch itself
// keeps it.
func withTestSandboxRoutes(t *testing.T, opts emulator.Options) emulator.Options {
	t.Helper()
	switch only := os.Getenv(envTestSandboxRoutes); only {
	case "":
	case "v2":
		opts.SandboxRoutesV1Off = opts.SandboxRoutesV1Off || !opts.SandboxRoutesV2Off
	case "v1":
		opts.SandboxRoutesV2Off = opts.SandboxRoutesV2Off || !opts.SandboxRoutesV1Off
	default:
		t.Fatalf("%s=%q: want v1 or v2", envTestSandboxRoutes, only)
	}
	return opts
}

// testAccBackend returns an emulator, or nil in live mode; pass it to testAccProviderBlock.
func testAccBackend(t *testing.T) *emulator.Server {
	t.Helper()
	testAccPreCheck(t)
	if testAccLive() {
		return nil
	}
	return newTestEmulator(t)
}

// testAccProviderBlock returns the provider block for srv (nil: real E2B from the environment).
func testAccProviderBlock(srv *emulator.Server) string {
	return testAccProviderBlockWith(srv, "")
}

// testAccProviderBlockWith adds extra HCL inside the provider block.
func testAccProviderBlockWith(srv *emulator.Server, extra string) string {
	if srv == nil {
		return fmt.Sprintf("provider \"e2b\" {\n%s\n}\n", testAccLiveMark(extra))
	}
	return testAccProviderBlockAt(srv.APIKey(), srv.APIURL(), srv.SandboxURL(), extra)
}

// testAccLiveMark adds the sweepers' mark to the provider block of a live run (sweep_test.go):
// every sandbox the run creates then carries it in its metadata, under the test's own
// default_metadata when the test sets some.
func testAccLiveMark(extra string) string {
	mark := fmt.Sprintf("%q = \"true\"", testAccSweepKey)
	if strings.Contains(extra, "default_metadata = {") {
		return strings.Replace(extra, "default_metadata = {", "default_metadata = { "+mark+",", 1)
	}
	return extra + "\n  default_metadata = { " + mark + " }"
}

// testAccMetadataAll is the check of a whole metadata_all: the sweepers' mark is in it too on a
// live run.
func testAccMetadataAll(want map[string]knownvalue.Check) knownvalue.Check {
	if testAccLive() {
		want[testAccSweepKey] = knownvalue.StringExact("true")
	}
	return knownvalue.MapExact(want)
}

// testAccProviderBlockAt is the provider block for a key and URLs of the test's choosing (a
// gateway's, or URLs that lead nowhere), with fast retries and extra HCL inside it.
func testAccProviderBlockAt(apiKey, apiURL, sandboxURL, extra string) string {
	return fmt.Sprintf(`provider "e2b" {
  api_key        = %q
  api_url        = %q
  sandbox_url    = %q
  retry_wait_min = "10ms"
  retry_wait_max = "200ms"
%s
}
`, apiKey, apiURL, sandboxURL, extra)
}

// testAccTestdata is the HCL of a step kept in testdata/<the test's name>/ (a subtest's name
// holds its parent's folder), as HashiCorp's providers keep theirs: the files named there (every
// .tf file when none is), joined. Values from Go reach the files as variables, through the
// step's ConfigVariables. The step's Config is the provider block (testAccProviderBlock and its
// kin: the emulator's address is known only when the test runs) and this; the files do not go
// in as a ConfigDirectory, where a provider block would pass for providers of the step's own,
// beside the case's.
func testAccTestdata(t *testing.T, files ...string) string {
	t.Helper()
	return testAccTestdataFrom(t, t.Name(), files...)
}

// testAccTestdataFrom is testAccTestdata for a folder of testdata/ that several tests share.
func testAccTestdataFrom(t *testing.T, folder string, files ...string) string {
	t.Helper()
	src := filepath.Join("testdata", filepath.FromSlash(folder))
	if len(files) == 0 {
		found, err := filepath.Glob(filepath.Join(src, "*.tf"))
		if err != nil || len(found) == 0 {
			t.Fatalf("%s holds no .tf files (%v)", src, err)
		}
		for _, f := range found {
			files = append(files, filepath.Base(f))
		}
	}
	var b strings.Builder
	for _, f := range files {
		content, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
		b.Write(content)
	}
	return b.String()
}

// testAccClient returns a client for checks made outside Terraform.
func testAccClient(t *testing.T, srv *emulator.Server) *e2b.Client {
	t.Helper()
	cfg := e2b.Config{APIKey: os.Getenv(envAPIKey), Version: "test", RetryWaitMin: 10 * time.Millisecond, RetryWaitMax: 200 * time.Millisecond}
	if srv != nil {
		cfg.APIKey, cfg.APIURL, cfg.SandboxURL = srv.APIKey(), srv.APIURL(), srv.SandboxURL()
	}
	c, err := e2b.New(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

// testAccAttr reads one attribute of a resource from the state.
func testAccAttr(s *terraform.State, address, attr string) (string, error) {
	rs, ok := s.RootModule().Resources[address]
	if !ok {
		return "", fmt.Errorf("%s not in state", address)
	}
	v, ok := rs.Primary.Attributes[attr]
	if !ok {
		return "", fmt.Errorf("%s has no attribute %s", address, attr)
	}
	return v, nil
}

// testAccEnvd returns the envd handle of the sandbox resource at address.
func testAccEnvd(s *terraform.State, client *e2b.Client, address string) (*e2b.Envd, error) {
	id, err := testAccAttr(s, address, "id")
	if err != nil {
		return nil, err
	}
	token := s.RootModule().Resources[address].Primary.Attributes["envd_access_token"]
	return client.Envd(e2b.EnvdTarget{SandboxID: id, AccessToken: token}), nil
}

// testAccCheckSandboxGone verifies that every e2b_sandbox in the state was killed.
func testAccCheckSandboxGone(t *testing.T, srv *emulator.Server) func(*terraform.State) error {
	return func(s *terraform.State) error {
		client := testAccClient(t, srv)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "e2b_sandbox" {
				continue
			}
			_, err := client.GetSandbox(context.Background(), rs.Primary.ID)
			if err == nil {
				return fmt.Errorf("sandbox %s still exists after destroy", rs.Primary.ID)
			}
			if !e2b.IsNotFound(err) {
				return fmt.Errorf("sandbox %s: %v", rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// totalRequests sums the emulator's request counters (admin routes are not counted).
func totalRequests(srv *emulator.Server) (int, string) {
	c := srv.Counters()
	n := 0
	var routes []string
	for k, v := range c.Requests {
		n += v
		routes = append(routes, fmt.Sprintf("%s=%d", k, v))
	}
	return n, strings.Join(routes, ", ")
}

// testAccRequiredProviders is a terraform block naming the provider's source. plugin-testing adds
// one to normal steps but not to import-block steps, where OpenTofu would otherwise look up
// hashicorp/e2b in a registry.
func testAccRequiredProviders() string {
	ns := os.Getenv("TF_ACC_PROVIDER_NAMESPACE")
	if ns == "" {
		ns = "hashicorp"
	}
	host := os.Getenv("TF_ACC_PROVIDER_HOST")
	if host == "" {
		host = "registry.terraform.io"
	}
	return fmt.Sprintf("terraform {\n  required_providers {\n    e2b = { source = %q }\n  }\n}\n", host+"/"+ns+"/e2b")
}

// testAccCheckNoRequests fails the test if any request reached E2B; what names the input that
// was to be refused before any.
func testAccCheckNoRequests(t *testing.T, srv *emulator.Server, what string) {
	t.Helper()
	if n, routes := totalRequests(srv); n != 0 {
		t.Errorf("%s reached E2B: %d requests (%s)", what, n, routes)
	}
}

// testAccRefusedWithoutRequests runs steps that must each fail, then checks that none of them
// reached E2B: bad input is refused before any work.
func testAccRefusedWithoutRequests(t *testing.T, srv *emulator.Server, steps []resource.TestStep) {
	t.Helper()
	resource.ParallelTest(t, testAccCase(t, nil, steps))
	testAccCheckNoRequests(t, srv, "refused input")
}

// identityImportVersions skips a test on CLIs older than 1.12: resource identity and import
// blocks with identity exist from 1.12 on.
var identityImportVersions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}

// identityStep applies config and checks the identity of the resource at address.
func identityStep(config, address string, identity map[string]knownvalue.Check) resource.TestStep {
	return resource.TestStep{
		Config:            config,
		ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(address, identity)},
	}
}

// importBlockStep imports the resource at address with an import block of the given kind.
func importBlockStep(config, address string, kind resource.ImportStateKind) resource.TestStep {
	return resource.TestStep{Config: config, ResourceName: address, ImportState: true, ImportStateKind: kind}
}

// planErrorStep is a plan-only step that must fail with an error matching want.
func planErrorStep(config, want string) resource.TestStep {
	return resource.TestStep{Config: config, PlanOnly: true, ExpectError: regexp.MustCompile(want)}
}

// badSandboxChildStep is a planErrorStep for a resource of typ (a file or command) with body in
// the sandbox "isandbox": the bad-input tables of the sandbox's children share it.
func badSandboxChildStep(srv *emulator.Server, typ, body, want string) resource.TestStep {
	return planErrorStep(testAccProviderBlock(srv)+fmt.Sprintf(`
resource %q "bad" {
  sandbox_id = "isandbox"
  %s
}
`, typ, body), want)
}

// testAccCLIIsOpenTofu reports whether the acceptance tests' CLI is OpenTofu, for the few
// behaviours in which it differs from Terraform.
func testAccCLIIsOpenTofu(t *testing.T) bool {
	t.Helper()
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		found, err := exec.LookPath("terraform")
		if err != nil {
			t.Fatalf("no CLI for acceptance tests: set TF_ACC_TERRAFORM_PATH (%v)", err)
		}
		cli = found
	}
	out, err := exec.Command(cli, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", cli, err)
	}
	return strings.Contains(string(out), "OpenTofu")
}
