# Two sandboxes mount the volume at different paths: what one writes, the other reads.
resource "e2b_sandbox" "a" {
  timeout       = "15m"
  volume_mounts = { (e2b_volume.shared.name) = "/mnt/shared" }
}
resource "e2b_sandbox" "b" {
  timeout       = "15m"
  volume_mounts = { (e2b_volume.shared.name) = "/home/user/data" }
}
resource "e2b_sandbox_command" "write" {
  sandbox_id = e2b_sandbox.a.id
  cwd        = "/mnt/shared"
  command    = "echo written-by-a > note.txt"
}
resource "e2b_sandbox_command" "read" {
  depends_on = [e2b_sandbox_command.write]
  sandbox_id = e2b_sandbox.b.id
  cwd        = "/home/user/data"
  command    = "cat note.txt"
}
data "e2b_volumes" "all" {
  depends_on = [e2b_volume.shared]
}
