variable "github_token" {
  type      = string
  sensitive = true
  ephemeral = true # never written to plan or state (Terraform 1.10+, OpenTofu 1.11+)
}

# The value is write-only: bump value_version to send a new one.
resource "e2b_secret" "github" {
  name          = "github-token"
  value         = var.github_token
  value_version = 1
  metadata      = { owner = "platform" }
}

# E2B's egress sets the header on the sandbox's requests to api.github.com, with the
# secret's current value; the sandbox itself never sees it.
resource "e2b_sandbox" "agent" {
  network = {
    allow_out = ["api.github.com"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "api.github.com" = {
        headers = { Authorization = "Bearer ${provider::e2b::secret_ref(e2b_secret.github.name)}" }
      }
    }
  }
}

resource "e2b_sandbox_command" "whoami" {
  sandbox_id = e2b_sandbox.agent.id
  command    = "curl -sS https://api.github.com/user"
}

# Without write-only attributes (older Terraform or OpenTofu): stored in state, marked sensitive.
variable "legacy_token" {
  type      = string
  sensitive = true
}

resource "e2b_secret" "legacy" {
  name            = "legacy-token"
  sensitive_value = var.legacy_token
}
