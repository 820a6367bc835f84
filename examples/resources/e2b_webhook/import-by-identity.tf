# Terraform and OpenTofu 1.12 or later can import by resource identity. An imported webhook may leave
# url and the signature secret out of the configuration: it keeps what E2B has until you set them.
import {
  to = e2b_webhook.lifecycle
  identity = {
    webhook_id = "5f1c2e9a-0d1b-4f5e-9a53-1f0e8c2b7d44"
  }
}
