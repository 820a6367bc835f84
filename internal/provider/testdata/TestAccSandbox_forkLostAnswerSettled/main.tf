resource "e2b_sandbox" "source" {
  metadata = { owner = "team-a" }
}

resource "e2b_sandbox" "fork" {
  fork_from = e2b_sandbox.source.id
}

resource "e2b_sandbox" "fork_of_fork" {
  fork_from = e2b_sandbox.fork.id
}
