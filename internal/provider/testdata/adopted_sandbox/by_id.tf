import {
  to = e2b_sandbox.adopted
  id = var.sandbox_id
}
