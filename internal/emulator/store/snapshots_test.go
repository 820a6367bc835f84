package store

import (
	"testing"
	"time"
)

// The snapshot API lists a snapshot template once, as its newest ready build (or its newest
// under a tag), filters by name and by the sandbox it was first taken from, and answers a
// name that belongs to a template that is not a snapshot.
func TestSnapshotsAreListedOncePerTemplate(t *testing.T) {
	st := New()
	at := time.Now().UTC()
	tmpl := Template{ID: "snaptpl", Names: []string{TeamNamespace + "/snap"}, Snapshot: true, CreatedAt: at}
	first := st.AddSnapshot(tmpl, "v1", "b1", Build{SourceSandbox: "ia"}, at)
	if first.TemplateID != "snaptpl" || first.Tag != "v1" || first.BuildID != "b1" || first.Names[0] != TeamNamespace+"/snap" {
		t.Fatalf("first snapshot %+v", first)
	}
	found, ok := false, false
	if tmpl, found, ok = st.SnapshotByName("snap"); !found || !ok || tmpl.ID != "snaptpl" {
		t.Fatalf("by name: %+v %v %v", tmpl, found, ok)
	}
	st.AddSnapshot(tmpl, DefaultTag, "b2", Build{SourceSandbox: "ib"}, at.Add(time.Second))
	st.AddSnapshot(Template{ID: "other", Snapshot: true, CreatedAt: at.Add(time.Minute)}, DefaultTag, "b3", Build{SourceSandbox: "ib"}, at)

	list := func(f SnapshotFilter) (out []string) {
		for _, s := range st.Snapshots(f) {
			out = append(out, s.TemplateID+":"+s.Tag+"@"+s.BuildID+"<"+s.SourceSandbox)
		}
		return out
	}
	for _, c := range []struct {
		f    SnapshotFilter
		want []string
	}{
		{SnapshotFilter{}, []string{"other:default@b3<ib", "snaptpl:default@b2<ia"}},
		{SnapshotFilter{Template: "snap"}, []string{"snaptpl:default@b2<ia"}},
		{SnapshotFilter{Template: TeamNamespace + "/snap", Tag: "v1"}, []string{"snaptpl:v1@b1<ia"}},
		{SnapshotFilter{Template: "snap", Tag: "v9"}, nil},
		{SnapshotFilter{Template: "nothing"}, nil},
		{SnapshotFilter{SandboxID: "ia"}, []string{"snaptpl:default@b2<ia"}},
		{SnapshotFilter{SandboxID: "ib"}, []string{"other:default@b3<ib"}},
	} {
		if got := list(c.f); len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) || (len(got) > 1 && got[1] != c.want[1]) {
			t.Errorf("Snapshots(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
	if _, err := st.RequestBuild("app", "apptpl", "b4", nil, nil, nil, at); err != nil {
		t.Fatal(err)
	}
	if _, found, ok := st.SnapshotByName("app"); found || ok {
		t.Fatalf("a template's name taken for a snapshot's: found %v ok %v", found, ok)
	}
	if got := list(SnapshotFilter{Template: "app"}); got != nil {
		t.Fatalf("a template that is not a snapshot listed: %v", got)
	}
}
