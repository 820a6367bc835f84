package emulator

// A snapshot is one build of a snapshot template, known by the tag it was
// created under: "<name or ID>:<tag>". E2B gives the new build only that tag
// (the default one when the name has none), so snapshots taken under one name
// with tags of their own stay apart, and deleting one tag leaves the others.

// snapshotBase is what a snapshot ID starts with: the first name, else the ID.
func (t *template) snapshotBase() string {
	if len(t.names) > 0 {
		return t.names[0]
	}
	return t.id
}

// snapshotEntry is the snapshot the tag names.
func (t *template) snapshotEntry(tag string) snapshotInfoJSON {
	names := make([]string, 0, len(t.names))
	for _, n := range t.names {
		names = append(names, n+":"+tag)
	}
	return snapshotInfoJSON{SnapshotID: t.snapshotBase() + ":" + tag, Names: names}
}

// snapshotEntries lists a snapshot template as one entry per tag,
// optionally only the builds taken from one sandbox.
func (t *template) snapshotEntries(fromSandbox string) []snapshotInfoJSON {
	var out []snapshotInfoJSON
	for _, a := range t.tagList() {
		if fromSandbox != "" && a.build.sourceSandbox != fromSandbox {
			continue
		}
		out = append(out, t.snapshotEntry(a.tag))
	}
	return out
}
