# Provider functions need the provider in required_providers.
terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

# "${e2b.identity.tokens.aws}": E2B's egress mints a workload token for the sandbox and sets
# it on requests to sts.amazonaws.com. The token must be declared in iam.
resource "e2b_sandbox" "agent" {
  iam = {
    aws = { audience = "sts.amazonaws.com", token_type = "JWT-SVID" }
  }
  network = {
    allow_out = ["sts.amazonaws.com"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "sts.amazonaws.com" = {
        headers = { Authorization = "Bearer ${provider::e2b::iam_token_ref("aws")}" }
      }
    }
  }
}
