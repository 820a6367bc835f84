package store

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A tag keeps resolving to its ready build while a rebuild runs, the views
// are copies, and a reopened store has the templates with the running build
// failed.
func TestTemplatesBuildsTagsAndReopen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	st := New()
	if err := st.OpenTemplates(file, t.Logf); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	tm, err := st.RequestBuild("app", "tpl1", "b1", nil, nil, []string{"v1"}, now)
	if err != nil || tm.ID != "tpl1" || tm.Names[0] != TeamNamespace+"/app" {
		t.Fatalf("request: %+v %v", tm, err)
	}
	if _, err := st.StartBuild("tpl1", "b1", func() {}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartBuild("tpl1", "b1", func() {}); !errors.Is(err, ErrNotWaiting) {
		t.Fatalf("second start: %v", err)
	}
	st.AppendBuildLog("tpl1", "b1", BuildLogEntry{Timestamp: now, Message: "step", Level: "info"})
	st.FinishBuild("tpl1", "b1", BuildResult{Config: BuildConfig{User: "user", Envs: map[string]string{"A": "1"}}, Last: BuildLogEntry{Message: "done"}}, now)
	if _, b, ok := st.ResolveBuild("app:v1"); !ok || b.ID != "b1" {
		t.Fatalf("app:v1 resolves to %+v %v", b, ok)
	}
	// A rebuild under the same tag does not take it while it runs.
	var cancelled bool
	if _, err := st.RequestBuild("app", "unused", "b2", nil, nil, []string{"v1"}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartBuild("tpl1", "b2", func() { cancelled = true }); err != nil {
		t.Fatal(err)
	}
	if !st.AssignTags("tpl1", "b1", []string{"stable"}, now) { // saves the running build
		t.Fatal("assign failed")
	}
	_, b, ok := st.ResolveBuild("local-team/app:v1")
	if !ok || b.ID != "b1" {
		t.Fatalf("during the rebuild app:v1 resolves to %+v %v", b, ok)
	}
	b.Config.Envs["A"] = "changed"
	if _, again, _ := st.ResolveBuild("app:v1"); again.Config.Envs["A"] != "1" {
		t.Fatal("a view shares its env map with the store")
	}
	if _, full, _ := st.BuildByID("tpl1", "b1"); len(full.Logs) != 2 {
		t.Fatalf("logs %+v", full.Logs)
	}
	if _, _, err := st.TagTarget(BaseTemplateName, DefaultTag); !errors.Is(err, ErrNotFound) {
		t.Fatalf("base without a seed: %v", err)
	}
	reopened := New()
	if err := reopened.OpenTemplates(file, t.Logf); err != nil {
		t.Fatal(err)
	}
	_, b2, ok := reopened.BuildByID("tpl1", "b2")
	if !ok || b2.Status != BuildError || b2.Reason == nil {
		t.Fatalf("running build after reopen: %+v %v", b2, ok)
	}
	if _, b, ok := reopened.ResolveBuild("app:stable"); !ok || b.ID != "b1" || b.Config.Envs["A"] != "1" {
		t.Fatalf("reopened app:v1: %+v %v", b, ok)
	}
	if _, ok := st.DeleteTemplate("tpl1"); !ok || !cancelled {
		t.Fatalf("delete: %v, running build cancelled: %v", ok, cancelled)
	}
}
