# Terraform 1.12+ / OpenTofu 1.12+: import a folder by its identity.
import {
  to = e2b_sandbox_folder.app
  identity = {
    sandbox_id  = "i1a2b3c4d5e6f7g8h9"
    destination = "/home/user/app"
  }
}
