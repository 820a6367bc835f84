# Templates as code: build a template from a Dockerfile and a context folder,
# smoke-test the new build in a sandbox started from exactly that build, and
# only then point the `prod` tag at it. Sandboxes that start from
# "<name>:prod" get the new build only once it passed.
#
# Credentials come from the environment (E2B_API_KEY), so this works unchanged
# against real E2B and against the local emulator (`make demo`).

terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

provider "e2b" {}

# The plan hashes the files the Dockerfile's COPY lines send: editing
# app/server.sh plans a new build, editing README.md plans nothing.
resource "e2b_template" "app" {
  name       = var.name
  dockerfile = file("${path.module}/Dockerfile")
  context    = path.module
  cpu_count  = 1
  memory_mb  = 512

  # Sandboxes from the template are ready once the server wrote its file.
  ready = { file = "/tmp/server-ready" }
}

# A sandbox from the new build itself (name:build_id), not from a tag.
resource "e2b_sandbox" "smoke" {
  template = "${e2b_template.app.name}:${e2b_template.app.build_id}"
  timeout  = "10m"

  metadata = {
    purpose = "smoke-test"
  }
}

# Fails the apply (and so stops the promotion) when the smoke test fails.
resource "e2b_sandbox_command" "smoke_test" {
  sandbox_id = e2b_sandbox.smoke.id
  command    = "bash /app/smoke-test.sh"
  timeout    = "2m"

  triggers = {
    build = e2b_template.app.build_id
  }
}

# Promote: `prod` follows the build only after its smoke test passed.
resource "e2b_template_tag" "prod" {
  template = e2b_template.app.name
  tag      = "prod"
  build_id = e2b_template.app.build_id

  depends_on = [e2b_sandbox_command.smoke_test]
}
