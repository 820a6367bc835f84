data "e2b_sandbox_events" "killed" {
  types = ["sandbox.lifecycle.killed"]
  limit = 1
}
