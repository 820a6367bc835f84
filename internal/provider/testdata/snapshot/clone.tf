# Two sandboxes started from the snapshot: by its ID and by its template's.
resource "e2b_sandbox" "clone" {
  template = e2b_snapshot.test.snapshot_id
}

resource "e2b_sandbox" "clone_by_template_id" {
  template = e2b_snapshot.test.template_id
}
