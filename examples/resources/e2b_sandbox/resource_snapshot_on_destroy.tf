# On every CLI (OpenTofu, Terraform < 1.16): the sandbox is snapshotted as "dev-workspace" before
# it is killed, at destroy, at a replacement and when it leaves the configuration. A snapshot
# that fails keeps the sandbox. A sandbox created with template = "dev-workspace" starts from
# the newest snapshot of the name.
resource "e2b_sandbox" "workspace" {
  template = "base"
  timeout  = "1h"

  snapshot_on_destroy = {
    name = "dev-workspace"
  }
}
