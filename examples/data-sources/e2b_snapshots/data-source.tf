# All persistent snapshots named "python-ready" (filter by sandbox_id instead to see one sandbox's).
data "e2b_snapshots" "ready" {
  name = "python-ready"
}

output "snapshot_ids" {
  value = [for s in data.e2b_snapshots.ready.snapshots : s.snapshot_id]
}
