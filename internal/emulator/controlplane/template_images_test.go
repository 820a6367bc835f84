package controlplane_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// TestMissingImageFailsTheBuild: an image the emulator cannot provide fails
// the build at its base step, naming the image and both ways to provide it,
// and no step runs on the host's root instead. -host-root-images lets the
// images it names (only those) build on the host's root, with a warning in
// the log; E2B's base image is the emulator's base root without it.
func TestMissingImageFailsTheBuild(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	c := emulatortest.Start(t, emulator.Options{HostRootImages: []string{"debian:12"}})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	steps := []map[string]any{{"type": "RUN", "args": []string{"echo step-ran"}}}

	b := c.RequestBuild(map[string]any{"name": "missing-image"})
	c.StartBuild(b, map[string]any{"fromImage": "python:3.12-slim", "steps": steps})
	res := c.WaitBuild(b)
	if res.Status != store.BuildError || res.Reason == nil || res.Reason.Step == nil || *res.Reason.Step != "base" {
		t.Fatalf("status %s reason %+v\n%s", res.Status, res.Reason, emulatortest.LogText(res.LogEntries))
	}
	for _, want := range []string{"image 'python:3.12-slim' is not in the emulator's image store", "-image-store DIR", "named python_3.12-slim", "-host-root-images python:3.12-slim"} {
		if !strings.Contains(res.Reason.Message, want) {
			t.Fatalf("reason %q lacks %q", res.Reason.Message, want)
		}
	}
	if logs := emulatortest.LogText(res.LogEntries); strings.Contains(logs, "step-ran") || !strings.Contains(logs, "Build failed: error preparing image 'python:3.12-slim'") {
		t.Fatalf("logs:\n%s", logs)
	}

	b = c.RequestBuild(map[string]any{"name": "host-root-image"})
	c.StartBuild(b, map[string]any{"fromImage": "debian:12", "steps": steps})
	res = c.WaitBuild(b)
	if res.Status != store.BuildReady {
		t.Fatalf("opted-in image: %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
	}
	warned := false
	for _, e := range res.LogEntries {
		warned = warned || (e.Level == "warn" && strings.Contains(e.Message, "image 'debian:12' is not in the emulator's image store") &&
			strings.Contains(e.Message, "building on the host's root filesystem instead"))
	}
	if !warned {
		t.Fatalf("no warning that the build ran on the host's root:\n%s", emulatortest.LogText(res.LogEntries))
	}

	b = c.RequestBuild(map[string]any{"name": "base-image"})
	c.StartBuild(b, map[string]any{"fromImage": builder.BaseImage, "steps": steps})
	if res = c.WaitBuild(b); res.Status != store.BuildReady || !strings.Contains(emulatortest.LogText(res.LogEntries), "is E2B's base image") {
		t.Fatalf("base image: %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
	}
	v.AssertClean(t)
}

// TestStoredImageWithoutPrivateRootsFailsTheBuild: without private roots an
// image from the store cannot be used, and the build says so instead of
// running on the host's root.
func TestStoredImageWithoutPrivateRootsFailsTheBuild(t *testing.T) {
	t.Parallel()
	images := t.TempDir()
	if err := os.Mkdir(filepath.Join(images, "stored_1"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := emulatortest.Start(t, emulator.Options{Isolation: "none", ImageStore: images})
	b := c.RequestBuild(map[string]any{"name": "stored-image"})
	c.StartBuild(b, map[string]any{"fromImage": "stored:1", "steps": []map[string]any{{"type": "RUN", "args": []string{"echo step-ran"}}}})
	res := c.WaitBuild(b)
	if res.Status != store.BuildError || res.Reason == nil || !strings.Contains(res.Reason.Message, "image 'stored:1' is in the emulator's image store, but images need private root filesystems") ||
		!strings.Contains(res.Reason.Message, "-host-root-images stored:1") || strings.Contains(emulatortest.LogText(res.LogEntries), "step-ran") {
		t.Fatalf("status %s reason %+v\n%s", res.Status, res.Reason, emulatortest.LogText(res.LogEntries))
	}
}
