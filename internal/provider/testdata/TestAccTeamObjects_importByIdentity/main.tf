# One object of each team type, each of which the next steps import by its identity.
data "e2b_template" "app" {
  name = "identity-app"
}

resource "e2b_template_tag" "prod" {
  template = "identity-app"
  tag      = "prod"
  build_id = data.e2b_template.app.builds[0].build_id
}

resource "e2b_sandbox" "src" {}

resource "e2b_snapshot" "snap" {
  sandbox_id = e2b_sandbox.src.id
}

resource "e2b_volume" "data" {
  name = "identity-vol"
}

resource "e2b_secret" "token" {
  name          = "identity-secret"
  value         = "v"
  value_version = 1
}

resource "e2b_webhook" "hook" {
  url                      = "https://hooks.example/identity"
  events                   = ["sandbox.lifecycle.killed"]
  signature_secret         = "s"
  signature_secret_version = 1
}
