package bench

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// The requests each chain of sandbox → file → command costs, by route, as the emulator counts
// them. They are deterministic, so the test asserts them exactly.
var (
	// An apply creates the sandbox and reads it back (E2B's create answer has no startedAt,
	// endAt, cpuCount, memoryMB or diskSizeMB, which e2b_sandbox records), uploads the file
	// (tagged with its sha256, so no read-back) and starts the command.
	wantApply = map[string]int{
		"POST /v2/sandboxes":          1,
		"GET /sandboxes/{id}":         1,
		"envd POST /files":            1,
		"envd /process.Process/Start": 1,
	}
	// A plan reads each sandbox and stats each file; the command's record needs nothing.
	wantPlan = map[string]int{
		"GET /sandboxes/{id}":              1,
		"envd /filesystem.Filesystem/Stat": 1,
	}
	// Changing the files' content refreshes like a plan, writes each file again in place through
	// the access sealed in its private state, and runs each command again (its trigger changed)
	// through the same access, which the write has just proven.
	wantUpdate = map[string]int{
		"GET /sandboxes/{id}":              1,
		"envd /filesystem.Filesystem/Stat": 1,
		"envd POST /files":                 1,
		"envd /process.Process/Start":      1,
	}
	// A destroy refreshes like a plan, removes the file through the access sealed in its private
	// state (rm -f started in the sandbox) and kills the sandbox.
	wantDestroy = map[string]int{
		"GET /sandboxes/{id}":              1,
		"envd /filesystem.Filesystem/Stat": 1,
		"envd /process.Process/Start":      1,
		"DELETE /sandboxes/{id}":           1,
	}
)

// TestRequestsPerChain applies, plans, changes and destroys 50 chains of sandbox → file → command at
// -parallelism=10 with the real CLI and checks every request the emulator counted. With
// E2B_BENCH_PROVIDER naming another build it shows (failing) what that build sends.
func TestRequestsPerChain(t *testing.T) {
	ctx := context.Background()
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ws := harness.NewWorkspaceWith(t, srv, filepath.Dir(e2bProviderBinary(t)))
	ws.Write("main.tf", chainConfig(chains, true))
	changed := strings.Replace(chainConfig(chains, true), `"sandbox ${count.index}\n"`, `"sandbox ${count.index}, changed\n"`, 1)
	for _, phase := range []struct {
		name   string
		config string
		args   []string
		want   map[string]int
	}{
		{"apply", "", []string{"apply", "-auto-approve"}, wantApply},
		{"plan", "", []string{"plan", "-detailed-exitcode"}, wantPlan},
		{"update", changed, []string{"apply", "-auto-approve"}, wantUpdate},
		{"destroy", "", []string{"destroy", "-auto-approve"}, wantDestroy},
	} {
		if phase.config != "" {
			ws.Write("main.tf", phase.config)
		}
		srv.ResetCounters()
		r := ws.Run(ctx, append(phase.args, "-no-color", "-input=false", parallelism)...)
		if r.Err != nil {
			t.Fatalf("%s: %v\n%s", phase.name, r.Err, r.Output())
		}
		got := srv.Counters().Requests
		want := make(map[string]int, len(phase.want))
		for k, v := range phase.want {
			want[k] = v * chains
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s sent %v (per chain: %s), want per chain %v", phase.name, got, describeRequests(got), phase.want)
		}
		t.Logf("%s: %.2f requests per chain (%s)", phase.name, perChain(got), describeRequests(got))
	}
	if n := srv.Counters().SandboxesAlive; n != 0 {
		t.Errorf("%d sandboxes left after destroy", n)
	}
}
