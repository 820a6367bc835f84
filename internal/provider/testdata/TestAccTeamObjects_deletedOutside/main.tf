# One object of each team type; the test deletes them outside Terraform.
resource "e2b_sandbox" "src" {}

resource "e2b_snapshot" "snap" {
  sandbox_id = e2b_sandbox.src.id
}

resource "e2b_volume" "data" {
  name = "gone-vol"
}

resource "e2b_secret" "token" {
  name            = "gone-secret"
  sensitive_value = "v"
}

resource "e2b_webhook" "hook" {
  url                        = "https://hooks.example/gone"
  events                     = ["sandbox.lifecycle.killed"]
  sensitive_signature_secret = "s"
}
