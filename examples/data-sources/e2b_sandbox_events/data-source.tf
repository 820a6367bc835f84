resource "e2b_sandbox" "worker" {}

# The latest pause and kill events of one sandbox.
data "e2b_sandbox_events" "worker" {
  sandbox_id = e2b_sandbox.worker.id
  types      = ["sandbox.lifecycle.paused", "sandbox.lifecycle.killed"]
  limit      = 20
}

output "worker_events" {
  value = [for e in data.e2b_sandbox_events.worker.events : "${e.timestamp} ${e.type}"]
}
