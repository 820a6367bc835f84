# A sandbox with a file, and its snapshot (named var.name, or by E2B).
variable "name" {
  type    = string
  default = null
}

resource "e2b_sandbox" "test" {
  timeout = "15m"
}

resource "e2b_sandbox_file" "state" {
  sandbox_id = e2b_sandbox.test.id
  path       = "data/state.txt"
  content    = "prepared before the snapshot\n"
}

resource "e2b_snapshot" "test" {
  sandbox_id = e2b_sandbox.test.id
  name       = var.name
  depends_on = [e2b_sandbox_file.state]
}
