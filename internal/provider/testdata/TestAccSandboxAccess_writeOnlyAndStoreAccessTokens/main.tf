# The target sandbox's access details, read at run time, reach a command in another sandbox
# through write-only environment variables.
variable "store_access_tokens" { type = bool }

resource "e2b_sandbox" "target" {
  store_access_tokens = var.store_access_tokens
  network = {
    allow_public_traffic = false
  }
}

resource "e2b_sandbox" "runner" {}

ephemeral "e2b_sandbox_access" "target" {
  sandbox_id = e2b_sandbox.target.id
  ports      = [3000]
}

resource "e2b_sandbox_command" "hand_over" {
  sandbox_id = e2b_sandbox.runner.id
  command    = "for v in ENVD_TOKEN TRAFFIC_TOKEN ENVD_URL HOST; do printenv $v > /tmp/$v; done"
  env_wo = {
    ENVD_TOKEN    = ephemeral.e2b_sandbox_access.target.envd_access_token
    TRAFFIC_TOKEN = ephemeral.e2b_sandbox_access.target.traffic_access_token
    ENVD_URL      = ephemeral.e2b_sandbox_access.target.envd_url
    HOST          = ephemeral.e2b_sandbox_access.target.hosts["3000"]
  }
}
