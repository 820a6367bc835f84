resource "e2b_sandbox" "builder" {
  template = "base"
}

resource "e2b_sandbox_command" "install" {
  sandbox_id = e2b_sandbox.builder.id
  command    = "pip install --user requests"
}

# Snapshot the sandbox once its setup ran.
resource "e2b_snapshot" "ready" {
  sandbox_id = e2b_sandbox.builder.id
  name       = "python-with-requests"

  depends_on = [e2b_sandbox_command.install]
}

# New sandboxes start from the snapshot, with its files.
resource "e2b_sandbox" "worker" {
  template = e2b_snapshot.ready.snapshot_id
}
