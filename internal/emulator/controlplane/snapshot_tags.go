package controlplane

import "github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"

// A snapshot is one build of a snapshot template, known by the tag it was
// created under: "<name or ID>:<tag>". E2B gives the new build only that tag
// (the default one when the name has none), so snapshots taken under one name
// with tags of their own stay apart, and deleting one tag leaves the others.

// snapshotBase is what a snapshot ID starts with: the first name, else the ID.
func snapshotBase(t store.Template) string {
	if len(t.Names) > 0 {
		return t.Names[0]
	}
	return t.ID
}

// snapshotEntry is the snapshot the tag names.
func snapshotEntry(t store.Template, tag string) SnapshotInfoJSON {
	names := make([]string, 0, len(t.Names))
	for _, n := range t.Names {
		names = append(names, n+":"+tag)
	}
	return SnapshotInfoJSON{SnapshotID: snapshotBase(t) + ":" + tag, Names: names}
}

// snapshotEntries lists a snapshot template as one entry per tag,
// optionally only the builds taken from one sandbox.
func snapshotEntries(t store.Template, fromSandbox string) []SnapshotInfoJSON {
	source := map[string]string{}
	for _, b := range t.Builds {
		source[b.ID] = b.SourceSandbox
	}
	var out []SnapshotInfoJSON
	for _, a := range t.Tags {
		if fromSandbox != "" && source[a.BuildID] != fromSandbox {
			continue
		}
		out = append(out, snapshotEntry(t, a.Tag))
	}
	return out
}
