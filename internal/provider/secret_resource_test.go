package provider

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// headerRecorder is the upstream a sandbox calls: it keeps the
// Authorization headers it received and answers without echoing them.
type headerRecorder struct {
	mu  sync.Mutex
	got []string
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.got = append(h.got, r.Header.Get("Authorization"))
	h.mu.Unlock()
	_, _ = w.Write([]byte("upstream-ok"))
}

func (h *headerRecorder) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

// secretVariables fill testdata/TestAccSecret_egressRoundTrip/main.tf but for the secret's value,
// which TF_VAR_secret_value gives.
func secretVariables(upstream string, version int) config.Variables {
	return config.Variables{"upstream": config.StringVariable(upstream), "value_version": config.IntegerVariable(version)}
}

// The secret's value reaches the upstream through the egress proxy while
// the command's output, the state, every file of the working directories
// (states, plans, configuration) and the TRACE log never contain it.
func TestAccSecret_egressRoundTrip(t *testing.T) {
	srv := newTestEmulator(t)
	rec := &headerRecorder{}
	upstream := httptest.NewServer(rec)
	defer upstream.Close()
	upstreamURL := strings.Replace(upstream.URL, "127.0.0.1", "localhost", 1) // the rule's domain
	work, logPath := keepWorkAndTraceLog(t)
	const v1, v2 = "first-Value-9f3a1c", "second-Value-77b2e0"
	noValue := func(s *terraform.State) error {
		for addr, rs := range s.RootModule().Resources {
			for k, v := range rs.Primary.Attributes {
				if strings.Contains(v, v1) || strings.Contains(v, v2) {
					return fmt.Errorf("%s.%s holds the secret value", addr, k)
				}
			}
		}
		return nil
	}
	marker := "sent: Bearer ${e2b.secrets.acc-api-token}\nupstream-ok"
	cfg := testAccProviderBlock(srv) + testAccTestdata(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:       func() { t.Setenv("TF_VAR_secret_value", v1) },
				Config:          cfg,
				ConfigVariables: secretVariables(upstreamURL, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_sandbox_command.call", tfjsonpath.New("stdout"), knownvalue.StringExact(marker)),
					statecheck.ExpectKnownValue("e2b_secret.api", tfjsonpath.New("current_version"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("e2b_secret.api", tfjsonpath.New("value"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.e2b_secrets.all", tfjsonpath.New("secrets"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("acc-api-token"), "current_version": knownvalue.Int64Exact(1),
						}),
					})),
				},
				Check: noValue,
			},
			{
				// A new value_version sends the new value as version 2, in place.
				PreConfig:       func() { t.Setenv("TF_VAR_secret_value", v2) },
				Config:          cfg,
				ConfigVariables: secretVariables(upstreamURL, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_secret.api", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_secret.api", tfjsonpath.New("current_version"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("e2b_sandbox_command.call", tfjsonpath.New("stdout"), knownvalue.StringExact(marker)),
				},
				Check: noValue,
			},
			{
				ResourceName:            "e2b_secret.api",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateId:           "acc-api-token",
				ImportStateVerifyIgnore: []string{"value_version"},
				ConfigVariables:         secretVariables(upstreamURL, 2), // the import runs with the configuration above
			},
		},
	})
	if got := rec.received(); len(got) != 2 || got[0] != "Bearer "+v1 || got[1] != "Bearer "+v2 {
		t.Fatalf("the upstream received %q, want the two values", got)
	}
	checkSecretsNowhere(t, work, logPath, "e2b_secret", v1, v2)
}

// keepWorkAndTraceLog makes the test's CLI runs keep their working
// directories below work and write a TRACE log to logPath, for
// checkSecretsNowhere.
func keepWorkAndTraceLog(t *testing.T) (work, logPath string) {
	t.Helper()
	work = t.TempDir()
	logPath = filepath.Join(work, "trace.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_ACC_TEMP_DIR", work)
	t.Setenv("TF_ACC_PERSIST_WORKING_DIR", "1")
	return work, logPath
}

// checkSecretsNowhere fails when any of secrets is in a file below work (states,
// plans, configurations and variables, kept by TF_ACC_PERSIST_WORKING_DIR) or in the TRACE
// log at logPath, which must mention typeName (so that it is the right log).
func checkSecretsNowhere(t *testing.T, work, logPath, typeName string, secrets ...string) {
	t.Helper()
	log, err := os.ReadFile(logPath)
	if err != nil || len(log) == 0 {
		t.Fatalf("the TRACE log is missing: %v", err)
	}
	if !strings.Contains(string(log), typeName) {
		t.Fatalf("the TRACE log does not mention %s; is it the right log? (%d bytes)", typeName, len(log))
	}
	quoted := make([]string, len(secrets))
	for i, v := range secrets {
		quoted[i] = regexp.QuoteMeta(v)
	}
	leak := regexp.MustCompile(strings.Join(quoted, "|"))
	err = filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		// Links are the test harness's: it links each directory of this package's source (testdata,
		// packages below this one) into every working directory. What the CLI writes is a file.
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 ||
			strings.Contains(p, string(filepath.Separator)+"plugins"+string(filepath.Separator)) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if loc := leak.FindIndex(data); loc != nil {
			lo := max(loc[0]-200, 0)
			return fmt.Errorf("%s contains a secret: …%s…", p, data[lo:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAccSecret_validation(t *testing.T) {
	srv := newTestEmulator(t)
	for _, tc := range []struct{ body, want string }{
		{`name = "Upper"` + "\n  sensitive_value = \"x\"", `lower-case`},
		{`name = "sec_x"` + "\n  sensitive_value = \"x\"", `must not start with "sec_"`},
		{`name = "a"`, `(?s)A new secret needs its value`},
		{`name = "a"` + "\n  value = \"x\"", `(?s)value_version`},
		{`name = "a"` + "\n  value = \"x\"\n  value_version = 1\n  sensitive_value = \"y\"", `cannot be specified when`},
		{`name = "a"` + "\n  sensitive_value = \"x\"\n  metadata = { for i in range(32) : \"k${i}\" => \"v\" }", `(?s)metadata.*32 entries; at most 31 are\s+allowed`},
		{`name = "a"` + "\n  sensitive_value = \"x\"\n  metadata = { e2b-terraform-create-token = \"v\" }", `(?s)metadata.*reserved`},
		{`name = "a"` + "\n  sensitive_value = \"x\"\n  metadata = { (join(\"\", [for i in range(129) : \"k\"])) = \"v\" }", `(?s)metadata.*129 bytes long; E2B allows at most 128`},
		{`name = "a"` + "\n  sensitive_value = \"x\"\n  metadata = { k = format(\"%01025d\", 0) }", `(?s)metadata.*1025 bytes long; E2B allows at most 1024`},
		{`name = "a"` + "\n  sensitive_value = \"x\"\n  metadata = { for i in range(9) : \"k${i}\" => format(\"%01000d\", i) }", `(?s)metadata.*totals 9018 bytes`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      testAccProviderBlock(srv) + "resource \"e2b_secret\" \"x\" {\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	testAccCheckNoRequests(t, srv, "invalid secrets")
}

// The sensitive fallback stores the value in state, marked sensitive, and a
// change is a new version in place.
func TestAccSecret_sensitiveFallback(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := func(v string) string {
		return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_secret" "fb" {
  name            = "acc-fallback"
  sensitive_value = %q
}
`, v)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg("one"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectSensitiveValue("e2b_secret.fb", tfjsonpath.New("sensitive_value")),
					statecheck.ExpectKnownValue("e2b_secret.fb", tfjsonpath.New("current_version"), knownvalue.Int64Exact(1)),
				},
			},
			{
				Config: cfg("two"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_secret.fb", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_secret.fb", tfjsonpath.New("current_version"), knownvalue.Int64Exact(2)),
				},
			},
		},
	})
}
