# Provider functions need the provider in required_providers.
terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

output "marker" {
  # "${e2b.secrets.openai-key}": E2B's egress replaces it with the secret's value.
  value = provider::e2b::secret_ref("openai-key")
}
