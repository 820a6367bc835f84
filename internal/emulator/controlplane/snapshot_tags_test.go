package controlplane_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// TestSnapshotTagsAreBuildsOfOneTemplate takes snapshots under one name with
// tags of their own: each is a build reached by its tag alone, removable by tag,
// and all of it survives a restart. As E2B's, the listing shows the name's
// template once, as its newest build (or its newest under the tag asked for),
// under names without a tag, and a source-sandbox filter finds the template by
// the sandbox it was first taken from.
func TestSnapshotTagsAreBuildsOfOneTemplate(t *testing.T) {
	t.Parallel()
	c, restart := emulatortest.Restartable(t, t.TempDir())
	a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
	c.MustRun(a, `echo a > ~/which`)
	c.MustRun(b, `echo b > ~/which`)
	snap := func(sb emulatortest.Sandbox, name string) controlplane.SnapshotInfoJSON {
		t.Helper()
		st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/snapshots", map[string]any{"name": name})
		emulatortest.WantStatus(t, "snapshot "+name, st, data, http.StatusCreated)
		return emulatortest.Decode[controlplane.SnapshotInfoJSON](t, data)
	}
	v1, v2 := snap(a, "tagged:v1"), snap(b, "tagged:V2 ")
	if v1.SnapshotID != store.TeamNamespace+"/tagged:v1" || v2.SnapshotID != store.TeamNamespace+"/tagged:v2" ||
		len(v2.Names) != 1 || v2.Names[0] != store.TeamNamespace+"/tagged" {
		t.Fatalf("snapshots %+v %+v", v1, v2)
	}
	// E2B gives the build the name's tag only: there is no default build yet.
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "tagged"})
	emulatortest.WantStatus(t, "create from a name without a default build", st, data, http.StatusNotFound)
	st, data, _ = c.API("POST", "/sandboxes/"+a.SandboxID+"/snapshots", map[string]any{"name": "tagged:" + ids.UUID()})
	emulatortest.WantStatus(t, "a build ID as a tag", st, data, http.StatusBadRequest)
	def := snap(a, "tagged")
	if def.SnapshotID != store.TeamNamespace+"/tagged:default" {
		t.Fatalf("default snapshot %+v", def)
	}

	list := func(query string) []string {
		t.Helper()
		st, data, _ := c.API("GET", "/snapshots?"+query, nil)
		emulatortest.WantStatus(t, "list "+query, st, data, http.StatusOK)
		var ids []string
		for _, s := range emulatortest.Decode[[]controlplane.SnapshotInfoJSON](t, data) {
			ids = append(ids, s.SnapshotID)
		}
		return ids
	}
	wantIDs := func(what string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	wantIDs("by name: its newest build", list("name=tagged"), def.SnapshotID)
	wantIDs("by name and tag", list("name="+url.QueryEscape("tagged:v2")), v2.SnapshotID)
	wantIDs("by name and the default tag", list("name="+url.QueryEscape(store.TeamNamespace+"/tagged:default")), def.SnapshotID)
	wantIDs("by the sandbox it was first taken from", list("sandboxID="+a.SandboxID), def.SnapshotID)
	wantIDs("by a sandbox it was taken from later", list("sandboxID="+b.SandboxID))
	wantIDs("by an unknown name", list("name=nothing"))
	st, data, _ = c.API("GET", "/snapshots?name="+url.QueryEscape("other-team/tagged"), nil)
	emulatortest.WantStatus(t, "list by another team's name", st, data, http.StatusBadRequest)
	st, data, _ = c.API("GET", "/snapshots?name="+url.QueryEscape("Bad Name"), nil)
	emulatortest.WantStatus(t, "list by an invalid name", st, data, http.StatusBadRequest)

	st, data, _ = c.API("GET", "/templates/tagged/tags", nil)
	emulatortest.WantStatus(t, "tags", st, data, http.StatusOK)
	tags := emulatortest.Decode[[]controlplane.TemplateTagJSON](t, data)
	if len(tags) != 3 || tags[0].Tag != "v1" || tags[1].Tag != "v2" || tags[2].Tag != store.DefaultTag ||
		tags[0].BuildID == tags[1].BuildID || tags[1].BuildID == tags[2].BuildID {
		t.Fatalf("tags %+v", tags)
	}

	reads := func(ref, want string) {
		t.Helper()
		sb := c.Create(map[string]any{"templateID": ref})
		if got := c.MustRun(sb, `cat ~/which`); got != want+"\n" {
			t.Fatalf("sandbox from %s reads %q, want %q", ref, got, want)
		}
		st, data, _ := c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	}
	reads(v1.SnapshotID, "a")
	reads(v2.SnapshotID, "b")
	reads("tagged", "a")

	del := func(tags ...string) (int, []byte) {
		st, data, _ := c.API("DELETE", "/templates/tags", map[string]any{"name": store.TeamNamespace + "/tagged", "tags": tags})
		return st, data
	}
	st, data = del(store.DefaultTag)
	emulatortest.WantStatus(t, "delete the default tag", st, data, http.StatusBadRequest)
	st, data = del("v1")
	emulatortest.WantStatus(t, "delete v1", st, data, http.StatusNoContent)
	wantIDs("after deleting v1", list("name="+url.QueryEscape("tagged:v1")))
	wantIDs("after deleting v1, by name", list("name=tagged"), def.SnapshotID)
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": v1.SnapshotID})
	emulatortest.WantStatus(t, "create from a deleted tag", st, data, http.StatusNotFound)

	c = restart()
	wantIDs("after a restart", list("name=tagged"), def.SnapshotID)
	wantIDs("by name and tag after a restart", list("name="+url.QueryEscape("tagged:v2")), v2.SnapshotID)
	wantIDs("by source sandbox after a restart", list("sandboxID="+a.SandboxID), def.SnapshotID)
	reads(v2.SnapshotID, "b")
	st, data, _ = c.API("DELETE", "/templates/"+url.PathEscape(v2.SnapshotID), nil)
	emulatortest.WantStatus(t, "delete the template by one of its snapshot IDs", st, data, http.StatusNoContent)
	wantIDs("after deleting the template", list("name=tagged"))
}
