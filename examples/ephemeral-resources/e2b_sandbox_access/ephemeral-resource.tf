# The sandbox lives in state, its tokens do not.
resource "e2b_sandbox" "web" {
  template            = "base"
  store_access_tokens = false
  network = {
    allow_public_traffic = false
  }
}

# Read at run time through E2B's connect call, never stored.
ephemeral "e2b_sandbox_access" "web" {
  sandbox_id = e2b_sandbox.web.id
  ports      = [3000]
}

# Hand the access details to a command in another sandbox through write-only variables.
resource "e2b_sandbox" "checker" {
  template = "base"
}

resource "e2b_sandbox_command" "check_web" {
  sandbox_id = e2b_sandbox.checker.id
  command    = "curl -fsS -H \"e2b-traffic-access-token: $TOKEN\" \"https://$HOST/health\""
  env_wo = {
    TOKEN = ephemeral.e2b_sandbox_access.web.traffic_access_token
    HOST  = ephemeral.e2b_sandbox_access.web.hosts["3000"]
  }
}
