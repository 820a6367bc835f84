# Provider functions need the provider in required_providers.
terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

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

resource "e2b_sandbox" "agent" {}

# The command sends the marker; E2B's egress puts the value in the header.
resource "e2b_sandbox_command" "whoami" {
  sandbox_id = e2b_sandbox.agent.id
  env        = { AUTH = "Bearer ${provider::e2b::secret_ref(e2b_secret.github.name)}" }
  command    = "curl -sS -H \"Authorization: $AUTH\" http://api.github.com/user"
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
