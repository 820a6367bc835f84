package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// What a killed test run leaves (marked) and what the team holds besides (unmarked), on the
// emulator; `-sweep` run by this test binary, as `make sweep` runs it, deletes exactly the marked.
func TestSweepersDeleteOnlyWhatTestsMade(t *testing.T) {
	srv := newTestEmulator(t)
	c := testAccClient(t, srv)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	sandbox := func(meta map[string]string) string {
		sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Metadata: meta})
		must(err)
		return sb.SandboxID
	}
	marked := map[string]string{testAccSweepKey: "true"}
	left := sandbox(marked)
	leftPaused := sandbox(marked)
	kept := sandbox(map[string]string{"purpose": "ci"})
	keptMarkedOtherwise := sandbox(map[string]string{testAccSweepKey: "false"})

	snap := func(sandboxID, name string) string {
		s, err := c.CreateSnapshot(ctx, sandboxID, name)
		must(err)
		return s.SnapshotID
	}
	leftSnap := snap(left, "")
	leftNamedSnap := snap(kept, testAccName("snap"))
	keptSnap := snap(kept, "keep-snap")
	must(c.PauseSandbox(ctx, leftPaused))

	leftTemplate := testAccName("tpl")
	srv.SeedTemplate(emulator.TemplateSeed{Names: []string{"local-team/" + leftTemplate}})
	srv.SeedTemplate(emulator.TemplateSeed{Names: []string{"local-team/keep-tpl"}})
	leftTag := testAccName("tag")
	_, _, err := c.AssignTemplateTags(ctx, "keep-tpl:default", []string{leftTag, "keep-tag"})
	must(err)

	leftVolume, err := c.CreateVolume(ctx, testAccName("vol"))
	must(err)
	keptVolume, err := c.CreateVolume(ctx, "keep-vol")
	must(err)
	leftSecret, err := c.CreateSecret(ctx, testAccName("sec"), "s3cret", nil)
	must(err)
	keptSecret, err := c.CreateSecret(ctx, "keep-sec", "s3cret", nil)
	must(err)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	hook := func(name string) string {
		url, sig := receiver.URL, "signing-secret"
		h, err := c.CreateWebhook(ctx, e2b.WebhookInput{Name: &name, URL: &url, SignatureSecret: &sig,
			Events: []string{"sandbox.lifecycle.killed"}})
		must(err)
		return h.WebhookID
	}
	leftHook, keptHook := hook(testAccName("hook")), hook("keep-hook")

	cmd := exec.Command(os.Args[0], "-test.run=^$", "-sweep=e2b")
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "E2B_") }),
		envAPIKey+"="+srv.APIKey(), envAPIURL+"="+srv.APIURL(), envSandboxURL+"="+srv.SandboxURL())
	out, err := cmd.CombinedOutput()
	t.Logf("sweep:\n%s", out)
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}

	// What it says it deleted: each marked object, once.
	for _, id := range []string{left, leftPaused, leftSnap, leftNamedSnap, leftVolume.VolumeID, leftSecret.SecretID, leftHook} {
		if n := strings.Count(string(out), " "+id+"\n") + strings.Count(string(out), " "+id+" ("); n != 1 {
			t.Errorf("the sweep reports %s deleted %d times, want once", id, n)
		}
	}
	for _, want := range []string{"deleted template ", "deleted template tag local-team/keep-tpl:" + leftTag} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the sweep does not report %q", want)
		}
	}

	// What is left: exactly the unmarked.
	boxes, err := c.ListSandboxes(ctx, e2b.ListSandboxesParams{States: []string{e2b.SandboxStateRunning, e2b.SandboxStatePaused}})
	must(err)
	var ids []string
	for _, b := range boxes {
		ids = append(ids, b.SandboxID)
	}
	slices.Sort(ids)
	want := []string{kept, keptMarkedOtherwise}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("sandboxes after the sweep: %v, want %v", ids, want)
	}
	snaps, err := c.ListSnapshots(ctx, e2b.ListSnapshotsParams{})
	must(err)
	var snapIDs []string
	for _, s := range snaps {
		snapIDs = append(snapIDs, s.SnapshotID)
	}
	if !slices.Equal(snapIDs, []string{keptSnap}) {
		t.Errorf("snapshots after the sweep: %v, want [%s]", snapIDs, keptSnap)
	}
	templates, err := c.ListTemplates(ctx)
	must(err)
	for _, tpl := range templates {
		if slices.ContainsFunc(tpl.Names, sweepNamed) {
			t.Errorf("template %v is left after the sweep", tpl.Names)
		}
	}
	if exists, err := c.TemplateExists(ctx, "keep-tpl"); err != nil || !exists {
		t.Errorf("keep-tpl is gone after the sweep (%v)", err)
	}
	tags, err := c.ListTemplateTags(ctx, "keep-tpl")
	must(err)
	var tagNames []string
	for _, tag := range tags {
		tagNames = append(tagNames, tag.Tag)
	}
	if slices.Contains(tagNames, leftTag) || !slices.Contains(tagNames, "keep-tag") {
		t.Errorf("keep-tpl's tags after the sweep: %v, want keep-tag without %s", tagNames, leftTag)
	}
	vols, err := c.ListVolumes(ctx)
	must(err)
	if len(vols) != 1 || vols[0].VolumeID != keptVolume.VolumeID {
		t.Errorf("volumes after the sweep: %+v, want only keep-vol", vols)
	}
	secrets, err := c.ListSecrets(ctx)
	must(err)
	if len(secrets) != 1 || secrets[0].SecretID != keptSecret.SecretID {
		t.Errorf("secrets after the sweep: %+v, want only keep-sec", secrets)
	}
	hooks, err := c.ListWebhooks(ctx)
	must(err)
	if len(hooks) != 1 || hooks[0].WebhookID != keptHook {
		t.Errorf("webhooks after the sweep: %+v, want only keep-hook", hooks)
	}
}

// A live run's provider block marks every sandbox for the sweepers, also when the test sets a
// default_metadata of its own.
func TestLiveProviderBlockMarksSandboxes(t *testing.T) {
	mark := `"tf-acc-test" = "true"`
	for extra, want := range map[string]string{
		"":                                    "default_metadata = { " + mark + " }",
		`  default_metadata = { team = "a" }`: "default_metadata = { " + mark + `, team = "a" }`,
	} {
		got := testAccLiveMark(extra)
		if !strings.Contains(got, want) || strings.Count(got, "default_metadata") != 1 {
			t.Errorf("testAccLiveMark(%q) = %q, want one default_metadata with %s", extra, got, want)
		}
	}
}
