package controlplane

import "github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"

// A snapshot is known by its template and the tag its build was created under:
// "<first name or template ID>:<tag>". E2B gives the new build only that tag (the default one
// when the name has none), so snapshots taken under one name with tags of their own stay
// apart, and deleting one tag leaves the others. Names carry no tag ("<namespace>/<name>"),
// and a listing shows each snapshot template once, as its newest build.

// snapshotInfo is E2B's SnapshotInfo of a snapshot.
func snapshotInfo(sn store.Snapshot) SnapshotInfoJSON {
	base := sn.TemplateID
	if len(sn.Names) > 0 {
		base = sn.Names[0]
	}
	names := sn.Names
	if names == nil {
		names = []string{}
	}
	return SnapshotInfoJSON{SnapshotID: base + ":" + sn.Tag, Names: names}
}
