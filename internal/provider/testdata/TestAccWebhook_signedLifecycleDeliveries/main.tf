# Two webhooks on the lifecycle events: one signed with a secret from TF_VAR_hook_secret, one
# whose receiver fails at first.
variable "hook_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}
variable "ok_url" { type = string }
variable "fail_url" { type = string }
variable "enabled" {
  type    = bool
  default = null
}
variable "paused" {
  type    = bool
  default = false
}

resource "e2b_webhook" "all" {
  name                     = "lifecycle"
  url                      = var.ok_url
  events                   = ["sandbox.lifecycle.created", "sandbox.lifecycle.paused", "sandbox.lifecycle.resumed", "sandbox.lifecycle.killed"]
  signature_secret         = var.hook_secret
  signature_secret_version = 1
  enabled                  = var.enabled
}
resource "e2b_webhook" "flaky" {
  url                        = var.fail_url
  events                     = ["sandbox.lifecycle.created"]
  sensitive_signature_secret = "flaky-secret"
}
data "e2b_webhooks" "all" {
  depends_on = [e2b_webhook.all, e2b_webhook.flaky]
}
