package chaos

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// keptConfig makes n of every object E2B keeps: sandboxes, and (unless
// var.objects is false) a chain of two forks of each (a fork of the fork),
// volumes, secrets, webhooks, and a named and an unnamed snapshot of each
// sandbox. Templates join when their create settles lost answers too.
const keptConfig = retryingHeader + `
variable "n" { type = number }
variable "objects" {
  type    = bool
  default = true
}

resource "e2b_sandbox" "s" {
  count    = var.n
  timeout  = "15m"
  metadata = { suite = "lost-answers" }
}

resource "e2b_sandbox" "fork" {
  count     = var.objects ? var.n : 0
  fork_from = e2b_sandbox.s[count.index].id
  # A fork checkpoints its source: not while the source is being snapshotted.
  depends_on = [e2b_snapshot.named, e2b_snapshot.unnamed]
}

resource "e2b_sandbox" "fork_of_fork" {
  count     = var.objects ? var.n : 0
  fork_from = e2b_sandbox.fork[count.index].id
}

resource "e2b_volume" "v" {
  count = var.objects ? var.n : 0
  name  = "lost-${count.index}"
}

resource "e2b_secret" "k" {
  count           = var.objects ? var.n : 0
  name            = "lost-${count.index}"
  sensitive_value = "value-${count.index}"
  metadata        = { index = tostring(count.index) }
}

resource "e2b_webhook" "w" {
  count                      = var.objects ? var.n : 0
  name                       = "lost-${count.index}"
  url                        = "http://127.0.0.1:9/hook/${count.index}"
  events                     = ["sandbox.lifecycle.killed"]
  sensitive_signature_secret = "hook-secret-${count.index}"
}

resource "e2b_snapshot" "named" {
  count      = var.objects ? var.n : 0
  sandbox_id = e2b_sandbox.s[count.index].id
  name       = "lost-${count.index}"
}

resource "e2b_snapshot" "unnamed" {
  count      = var.objects ? var.n : 0
  sandbox_id = e2b_sandbox.s[count.index].id
}
`

// keptRoutes are the creates and deletes of every object E2B keeps.
var (
	keptCreates = []string{"POST /v2/sandboxes", "POST /v2/sandboxes/{id}/fork", "POST /volumes", "POST /secrets", "POST /events/webhooks",
		"POST /sandboxes/{id}/snapshots"}
	keptDeletes = []string{"DELETE /sandboxes/{id}", "DELETE /volumes/{id}", "DELETE /secrets/{id}", "DELETE /events/webhooks/{id}",
		"DELETE /templates/{id}", "DELETE /templates/tags"}
)

// keptTypes are the resource types of objects E2B keeps, with what each
// count of the configuration makes of them.
var keptTypes = map[string]int{"e2b_sandbox": 3, "e2b_volume": 1, "e2b_secret": 1, "e2b_webhook": 1, "e2b_snapshot": 2}

// keptOnEmulator lists, by resource type, the IDs of every object E2B keeps.
func keptOnEmulator(t *testing.T, srv *emulator.Server) map[string][]string {
	t.Helper()
	c, ctx := newClient(t, srv), context.Background()
	out := map[string][]string{"e2b_sandbox": srv.SandboxIDs()}
	vols, err := c.ListVolumes(ctx)
	must(t, err)
	for _, v := range vols {
		out["e2b_volume"] = append(out["e2b_volume"], v.VolumeID)
	}
	secrets, err := c.ListSecrets(ctx)
	must(t, err)
	for _, s := range secrets {
		out["e2b_secret"] = append(out["e2b_secret"], s.SecretID)
	}
	hooks, err := c.ListWebhooks(ctx)
	must(t, err)
	for _, w := range hooks {
		out["e2b_webhook"] = append(out["e2b_webhook"], w.WebhookID)
	}
	snaps, err := c.ListSnapshots(ctx, e2b.ListSnapshotsParams{})
	must(t, err)
	for _, s := range snaps {
		if len(s.Names) == 0 {
			out["e2b_snapshot"] = append(out["e2b_snapshot"], s.SnapshotID)
			continue
		}
		// E2B lists a named snapshot template once, as its newest build: its snapshots are
		// the tags each got for itself, so a second snapshot of a name is counted too.
		tags, err := c.ListTemplateTags(ctx, s.Template())
		must(t, err)
		for _, tg := range tags {
			if strings.HasPrefix(tg.Tag, "snap-") {
				out["e2b_snapshot"] = append(out["e2b_snapshot"], s.Template()+":"+tg.Tag)
			}
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// keptInState lists, by resource type, the IDs state records.
func keptInState(ctx context.Context, ws *harness.Workspace) map[string][]string {
	out := map[string][]string{}
	for _, r := range ws.State(ctx) {
		if _, kept := keptTypes[r.Type]; kept {
			if id, ok := r.Values["id"].(string); ok {
				out[r.Type] = append(out[r.Type], id)
			}
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

// keptFigures are what a lost-answer run reports; the target for each is zero.
type keptFigures struct {
	orphans    int // objects E2B keeps that no state records
	duplicates int // objects beyond what the configuration asks for
	missing    int // objects state records that E2B does not keep
	leftovers  int // objects E2B keeps after destroy
}

// compareKept counts, type by type, what E2B keeps against state and plan.
func compareKept(t *testing.T, ctx context.Context, ws *harness.Workspace, srv *emulator.Server, n int, fig *keptFigures) {
	t.Helper()
	kept, inState := keptOnEmulator(t, srv), keptInState(ctx, ws)
	for typ, per := range keptTypes {
		for _, id := range kept[typ] {
			if !slices.Contains(inState[typ], id) {
				fig.orphans++
				t.Errorf("%s %s is kept by E2B but recorded in no state", typ, id)
			}
		}
		for _, id := range inState[typ] {
			if !slices.Contains(kept[typ], id) {
				fig.missing++
				t.Errorf("%s %s is in state but E2B does not keep it", typ, id)
			}
		}
		if extra := len(kept[typ]) - per*n; extra > 0 {
			fig.duplicates += extra
			t.Errorf("%s: E2B keeps %d, the configuration asks for %d", typ, len(kept[typ]), per*n)
		}
	}
}

func countLeftovers(t *testing.T, srv *emulator.Server, fig *keptFigures) {
	t.Helper()
	for typ, ids := range keptOnEmulator(t, srv) {
		fig.leftovers += len(ids)
		for _, id := range ids {
			t.Errorf("%s %s left behind after destroy", typ, id)
		}
	}
}

// TestChaosLostAnswers: every create of every object E2B keeps takes effect
// and loses its answer, by a cut connection and by a gateway's 504; then
// deletes lose theirs at random. Each apply and destroy must succeed in one run,
// with 0 orphans, 0 duplicates and an empty plan. A last phase mixes lost
// answers with transient errors on every control-plane route at random and
// must converge to the same figures.
func TestChaosLostAnswers(t *testing.T) {
	n := envInt("E2B_CHAOS_KEPT", 2)
	srv, ws := chaosWorkspace(t, keptConfig)
	ctx := context.Background()
	args := []string{"-parallelism=10", "-var", fmt.Sprintf("n=%d", n)}
	var fig keptFigures
	start := time.Now()

	for _, how := range []string{emulator.LostDrop, emulator.LostGateway} {
		srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{how}, Routes: keptCreates})
		r := ws.Apply(ctx, args...)
		srv.SetFaults(emulator.Faults{})
		if r.Err != nil {
			t.Fatalf("apply with every create answer lost (%s): %v\n%s", how, r.Err, lastError(r.Output()))
		}
		compareKept(t, ctx, ws, srv, n, &fig)
		if !planIsEmpty(t, ctx, ws, args) {
			t.Fatalf("plan after the apply whose answers were lost (%s) is not empty", how)
		}
		// A delete whose answer is lost is sent again (deleting twice is deleting
		// once), so some of its answers must get through.
		srv.SetFaults(emulator.Faults{LoseAnswer: 0.3, LostAs: []string{how}, Routes: keptDeletes, Seed: 3})
		r = ws.Destroy(ctx, args...)
		srv.SetFaults(emulator.Faults{})
		if r.Err != nil {
			t.Fatalf("destroy with every delete answer lost (%s): %v\n%s", how, r.Err, lastError(r.Output()))
		}
		countLeftovers(t, srv, &fig)
	}
	lost := srv.Counters().FaultsInjected

	mixed := emulator.Faults{LoseAnswer: 0.3, LostAs: []string{emulator.LostDrop, emulator.LostGateway},
		ErrorRate: 0.1, Statuses: []int{429, 500, 503}, Routes: append(slices.Clone(keptCreates), keptDeletes...), Seed: 7}
	convergeKept(t, ctx, ws, srv, mixed, "apply", args)
	compareKept(t, ctx, ws, srv, n, &fig)
	convergeKept(t, ctx, ws, srv, mixed, "destroy", args)
	countLeftovers(t, srv, &fig)

	t.Logf("lost answers: %d × (sandbox and a chain of 2 forks, volume, secret, webhook, 2 snapshots) in %s; %d answers lost in the one-run phases, %d faults in all",
		n, time.Since(start).Round(time.Second), lost, srv.Counters().FaultsInjected)
	t.Logf("lost answers: orphans %d, duplicates %d, in state but gone %d, left after destroy %d",
		fig.orphans, fig.duplicates, fig.missing, fig.leftovers)
	if lost < 2*(4+2+2)*n { // every create and fork, twice
		t.Fatalf("only %d answers were lost: the run proves less than it claims", lost)
	}
	if fig != (keptFigures{}) {
		t.Fatalf("lost-answer targets missed: %+v", fig)
	}
}

// convergeKept runs apply or destroy under faults until it succeeds (at most
// 6 runs); a failed run must leave nothing that state does not record.
func convergeKept(t *testing.T, ctx context.Context, ws *harness.Workspace, srv *emulator.Server, faults emulator.Faults, verb string, args []string) {
	t.Helper()
	for attempt := 1; attempt <= 6; attempt++ {
		r := runUnderFaults(ctx, ws, srv, faults, attempt, verb, args)
		if r.Err == nil {
			if verb == "apply" && !planIsEmpty(t, ctx, ws, args) {
				t.Errorf("plan after the converged apply is not empty")
			}
			return
		}
		t.Logf("%s run %d failed (a later run must converge): %s", verb, attempt, lastError(r.Output()))
	}
	t.Fatalf("%s did not converge in 6 runs", verb)
}

// TestChaosInterruptedCreates: SIGINT to the CLI while the answers of
// volume, secret, webhook and snapshot creates are on their way (E2B made
// every object). The objects are found and recorded in state (0 orphans),
// the next apply makes nothing more (0 duplicates), and destroy leaves
// nothing.
func TestChaosInterruptedCreates(t *testing.T) {
	n := envInt("E2B_CHAOS_KEPT", 2)
	srv, ws := chaosWorkspace(t, keptConfig)
	ctx := context.Background()
	args := []string{"-var", fmt.Sprintf("n=%d", n)}
	mustApply(t, ctx, ws, append(args, "-var", "objects=false")...)

	srv.SetFaults(emulator.Faults{AnswerDelay: time.Hour, Routes: keptCreates[1:]})
	cmd, out := ws.Start(ctx, append([]string{"apply", "-auto-approve", "-no-color", "-input=false", "-parallelism=10"}, args...)...)
	deadline := time.Now().Add(120 * time.Second)
	for {
		kept := keptOnEmulator(t, srv)
		if len(kept["e2b_volume"]) == n && len(kept["e2b_secret"]) == n && len(kept["e2b_webhook"]) == n && len(kept["e2b_snapshot"]) == 2*n {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the creates never all reached E2B (%v):\n%s", kept, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	err := interruptCLI(t, cmd, out, 90*time.Second)
	t.Logf("interrupted apply ended: %v; %d warnings that objects were kept", err, strings.Count(out.String(), "was made"))
	srv.SetFaults(emulator.Faults{})

	var fig keptFigures
	compareKept(t, ctx, ws, srv, n, &fig)
	mustApply(t, ctx, ws, args...)
	compareKept(t, ctx, ws, srv, n, &fig)
	if !planIsEmpty(t, ctx, ws, args) {
		t.Fatal("plan after the apply that followed the interrupt is not empty")
	}
	if r := ws.Destroy(ctx, args...); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
	countLeftovers(t, srv, &fig)
	t.Logf("interrupted creates: orphans %d, duplicates %d, in state but gone %d, left after destroy %d",
		fig.orphans, fig.duplicates, fig.missing, fig.leftovers)
	if fig != (keptFigures{}) {
		t.Fatalf("interrupted-create targets missed: %+v", fig)
	}
}
