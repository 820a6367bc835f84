# Paused sandboxes of one project started this year (all pages).
data "e2b_sandboxes" "paused" {
  states        = ["paused"]
  metadata      = { project = "demo" }
  template      = "base"
  started_after = "2026-01-01T00:00:00Z"
}

output "paused_sandbox_ids" {
  value = data.e2b_sandboxes.paused.ids
}
