# What a user writes for the sandbox another client made with every option away from its
# default; by_id.tf or by_identity.tf adopts it by an import block.
variable "sandbox_id" { type = string }
variable "volume" { type = string }

resource "e2b_sandbox" "adopted" {
  template      = "mcp-gateway"
  timeout       = "1h"
  secure        = false
  auto_pause    = true
  auto_resume   = true
  metadata      = { team = "data" }
  env_vars      = { APP_ENV = "prod" }
  mcp           = jsonencode({ github = { githubPersonalAccessToken = "adopt-mcp-token" } })
  iam           = { gcp = { audience = "https://iam.example", token_type = "JWT-SVID" } }
  volume_mounts = { (var.volume) = "/mnt/data" }
  network = {
    allow_out = ["localhost"]
    deny_out  = ["0.0.0.0/0"]
    rules     = { "localhost" = { headers = { X-Team = "data" } } }
    egress_proxy = {
      address  = "127.0.0.1:1080"
      username = "u"
    }
  }
}
