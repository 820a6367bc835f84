package provider

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// buildGate holds a template build until the test opens it: a RUN step waits
// until it can connect to a local port, on which the gate listens once open.
type buildGate struct {
	t    *testing.T
	port int
	l    net.Listener
}

func newBuildGate(t *testing.T) *buildGate {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &buildGate{t: t, port: l.Addr().(*net.TCPAddr).Port}
	_ = l.Close()
	t.Cleanup(func() {
		if g.l != nil {
			_ = g.l.Close()
		}
	})
	return g
}

// step is a RUN command that waits for the gate, then runs then.
func (g *buildGate) step(then string) string {
	return fmt.Sprintf(`until (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null; do sleep 0.2; done; %s`, g.port, then)
}

func (g *buildGate) open() {
	g.t.Helper()
	if g.l != nil {
		return
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", g.port))
	if err != nil {
		g.t.Fatalf("open the build gate: %v", err)
	}
	g.l = l
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
}

// waitBuild waits until the build in state has status want at E2B.
func waitBuild(t *testing.T, srv *emulator.Server, s *terraform.State, want string) error {
	id, _ := testAccAttr(s, tplAddr, "template_id")
	build, _ := testAccAttr(s, tplAddr, "build_id")
	return waitBuildID(t, srv, id, build, want)
}

// waitBuildID waits until a build has status want at E2B.
func waitBuildID(t *testing.T, srv *emulator.Server, id, build, want string) error {
	c := testAccClient(t, srv)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		st, err := c.GetTemplateBuildStatus(context.Background(), id, build, e2b.StatusQuery{Limit: 1})
		if err == nil && st.Status == want {
			return nil
		}
	}
	return fmt.Errorf("build %s of template %s did not reach %q", build, id, want)
}

// checkOnlyBuilds checks that the template in state is still the one of the
// first apply and has exactly n builds: nothing was deleted or built again.
func checkOnlyBuilds(t *testing.T, srv *emulator.Server, templateID *captured, n int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, _ := testAccAttr(s, tplAddr, "template_id")
		if id != templateID.v {
			return fmt.Errorf("template %s in state, want %s, the one the first apply made", id, templateID.v)
		}
		tpl, err := testAccClient(t, srv).GetTemplate(context.Background(), id)
		if err != nil {
			return err
		}
		if len(tpl.Builds) != n {
			return fmt.Errorf("template %s has %d builds, want %d", id, len(tpl.Builds), n)
		}
		return nil
	}
}

func unfinishedConfig(srv *emulator.Server, name, command, createTimeout, updateTimeout string) string {
	return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template" "app" {
  name          = %q
  from_template = "base"
  steps         = [{ run = { command = %q } }]
  timeouts {
    create = %q
    update = %q
  }
}
`, name, command, createTimeout, updateTimeout)
}

// A create that times out while E2B still builds is not an error: the
// template is in state (not tainted) with its build "building". The next
// apply carries the same build on (and stops again at its own timeout), and
// once E2B finished it, the plan is empty: the template is never deleted and
// built again under a new ID.
func TestAccTemplate_createTimeoutKeepsTheBuild(t *testing.T) {
	srv := newTestEmulator(t)
	gate := newBuildGate(t)
	cfg := unfinishedConfig(srv, "acc-unfinished", gate.step("echo released"), "2s", "2s")
	var templateID, buildID captured
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_status"), knownvalue.StringExact("building")),
			},
			Check:              resource.ComposeTestCheckFunc(templateID.save(tplAddr, "template_id"), buildID.save(tplAddr, "build_id")),
			ExpectNonEmptyPlan: true, // the build is still running: the next apply carries it on
		},
		{
			// Still building: an update that carries the same build on.
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_id"), knownvalue.NotNull()),
				plancheck.ExpectUnknownValue(tplAddr, tfjsonpath.New("build_status")),
			}},
			Check:              resource.ComposeTestCheckFunc(checkOnlyBuilds(t, srv, &templateID, 1), checkAttrIs(tplAddr, "build_id", &buildID)),
			ExpectNonEmptyPlan: true,
		},
		{
			// E2B finished the build meanwhile: the refresh reads it ready,
			// and there is nothing to do.
			PreConfig: func() {
				gate.open()
				if err := waitBuildID(t, srv, templateID.v, buildID.v, e2b.BuildStatusReady); err != nil {
					t.Fatal(err)
				}
			},
			RefreshState: true,
			Check: resource.ComposeTestCheckFunc(checkOnlyBuilds(t, srv, &templateID, 1), checkAttrIs(tplAddr, "build_id", &buildID),
				resource.TestCheckResourceAttr(tplAddr, "build_status", "ready")),
		},
		{Config: cfg, PlanOnly: true},
	}))
}

// A build the provider stopped following that E2B then failed is built
// again in place, in the same template: never a replacement.
func TestAccTemplate_unfinishedBuildThatFailsIsBuiltAgainInPlace(t *testing.T) {
	srv := newTestEmulator(t)
	gate := newBuildGate(t)
	cfg := unfinishedConfig(srv, "acc-unfinished-fails", gate.step("echo 'broken step' >&2; exit 3"), "2s", "5m")
	var templateID captured
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config: cfg,
			Check: resource.ComposeTestCheckFunc(templateID.save(tplAddr, "template_id"), func(s *terraform.State) error {
				gate.open()
				return waitBuild(t, srv, s, e2b.BuildStatusError)
			}),
			ExpectNonEmptyPlan: true,
		},
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(tplAddr, tfjsonpath.New("build_id")),
			}},
			ExpectError: regexp.MustCompile(`(?s)Template build failed.*broken step.*next apply starts a new build of the same\s+template`),
		},
		{
			RefreshState:       true,
			Check:              checkOnlyBuilds(t, srv, &templateID, 2),
			ExpectNonEmptyPlan: true, // the new build failed as well
		},
	}))
}

// checkAttrIs checks that an attribute still has the captured value.
func checkAttrIs(addr, attr string, want *captured) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		got, err := testAccAttr(s, addr, attr)
		if err == nil && got != want.v {
			err = fmt.Errorf("%s.%s is %q, want %q", addr, attr, got, want.v)
		}
		return err
	}
}
