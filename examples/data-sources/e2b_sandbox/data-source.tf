variable "sandbox_id" {
  type = string
}

data "e2b_sandbox" "current" {
  id = var.sandbox_id
}

output "sandbox_ends_at" {
  value = data.e2b_sandbox.current.end_at
}
