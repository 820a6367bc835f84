# Terraform and OpenTofu 1.12 or later can import by resource identity.
import {
  to = e2b_volume.cache
  identity = {
    volume_id = "vol3k9x2m4p6r8t0w1y5"
  }
}
