# Provider functions need the provider in required_providers.
terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

# "${e2b.secrets.openai-key}": E2B's egress sets the header with the secret's value on
# requests to api.openai.com; the sandbox never sees it.
resource "e2b_sandbox" "agent" {
  network = {
    allow_out = ["api.openai.com"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "api.openai.com" = {
        headers = { Authorization = "Bearer ${provider::e2b::secret_ref("openai-key")}" }
      }
    }
  }
}
