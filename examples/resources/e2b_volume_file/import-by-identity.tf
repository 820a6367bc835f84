# Terraform 1.12+ / OpenTofu 1.12+: import a volume file by its identity.
import {
  to = e2b_volume_file.config
  identity = {
    volume_id = "vol1a2b3c4d5e6f7g8h9"
    path      = "/config/serving.json"
  }
}
