# Provider functions need the provider in required_providers.
terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

resource "e2b_sandbox" "web" {
  template = "base"
}

output "web_url" {
  # "https://3000-<sandbox id>.e2b.app"
  value = "https://${provider::e2b::sandbox_host(e2b_sandbox.web.id, 3000)}"
}

output "web_url_other_domain" {
  # Pass the domain when the provider does not use the default e2b.app.
  value = "https://${provider::e2b::sandbox_host(e2b_sandbox.web.id, 8080, "e2b.example.com")}"
}
