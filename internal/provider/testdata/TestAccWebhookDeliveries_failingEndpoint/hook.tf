# A webhook whose endpoint answers 500, and two sandboxes whose created events it is sent.
variable "hook_url" { type = string }

resource "e2b_webhook" "down" {
  name                       = "down"
  url                        = var.hook_url
  events                     = ["sandbox.lifecycle.created", "sandbox.lifecycle.killed"]
  sensitive_signature_secret = "down-hook-secret-7f3a"
}
resource "e2b_sandbox" "box" {
  count      = 2
  timeout    = "15m"
  depends_on = [e2b_webhook.down]
}
