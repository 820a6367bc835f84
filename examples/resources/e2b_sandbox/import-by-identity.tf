# Terraform and OpenTofu 1.12 or later can import by resource identity.
import {
  to = e2b_sandbox.example
  identity = {
    sandbox_id = "i1a2b3c4d5e6f7g8h9j0"
  }
}
