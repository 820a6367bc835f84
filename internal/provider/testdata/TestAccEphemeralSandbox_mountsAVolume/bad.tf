# Two volumes at one path: refused before anything is made.
ephemeral "e2b_sandbox" "bad" {
  volume_mounts = { a = "/mnt/x", b = "/mnt/x" }
}
resource "e2b_sandbox_command" "never" {
  sandbox_id_wo = ephemeral.e2b_sandbox.bad.id
  command       = "true"
}
