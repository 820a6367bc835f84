# A sandbox made after the first two went still sees their file.
resource "e2b_sandbox" "c" {
  timeout       = "15m"
  volume_mounts = { (e2b_volume.shared.name) = "/opt/v" }
}
resource "e2b_sandbox_command" "read_later" {
  sandbox_id = e2b_sandbox.c.id
  cwd        = "/opt/v"
  command    = "cat note.txt"
}
