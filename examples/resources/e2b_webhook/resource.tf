variable "webhook_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "e2b_webhook" "lifecycle" {
  name = "sandbox-lifecycle"
  url  = "https://hooks.example.com/e2b"
  events = [
    "sandbox.lifecycle.created",
    "sandbox.lifecycle.paused",
    "sandbox.lifecycle.resumed",
    "sandbox.lifecycle.killed",
  ]
  signature_secret         = var.webhook_secret
  signature_secret_version = 1
}
