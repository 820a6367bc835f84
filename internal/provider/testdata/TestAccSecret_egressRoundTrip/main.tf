# The secret's value comes from TF_VAR_secret_value, so that it is in no file the test writes.
# The sandbox's network rule for localhost puts the secret into the Authorization header; the
# command only sees the placeholder.
variable "value_version" { type = number }
variable "upstream" { type = string }
variable "secret_value" {
  type      = string
  sensitive = true
  ephemeral = true
}
resource "e2b_secret" "api" {
  name          = "acc-api-token"
  value         = var.secret_value
  value_version = var.value_version
  metadata      = { purpose = "acceptance" }
}
resource "e2b_sandbox" "box" {
  timeout = "15m"
  network = {
    allow_out = ["localhost"]
    deny_out  = ["0.0.0.0/0"]
    rules     = { "localhost" = { headers = { Authorization = "Bearer ${provider::e2b::secret_ref(e2b_secret.api.name)}" } } }
  }
}
resource "e2b_sandbox_command" "call" {
  sandbox_id = e2b_sandbox.box.id
  env        = { AUTH = "Bearer ${provider::e2b::secret_ref(e2b_secret.api.name)}" }
  command    = "echo \"sent: $AUTH\"; curl -sS ${var.upstream}/call"
  triggers   = { version = e2b_secret.api.current_version }
}
data "e2b_secrets" "all" {
  depends_on = [e2b_secret.api]
}
