import {
  to       = e2b_sandbox.adopted
  identity = { sandbox_id = var.sandbox_id }
}
