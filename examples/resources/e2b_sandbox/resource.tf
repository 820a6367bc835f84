resource "e2b_sandbox" "example" {
  template = "base"
  timeout  = "1h" # a Go duration; changed in place

  # Pause instead of being killed when the timeout runs out; `paused = false`
  # in the configuration then resumes it on the next apply.
  auto_pause = true
  paused     = false

  metadata = {
    purpose = "ci-runner"
  }

  env_vars = {
    APP_ENV = "staging"
  }

  network = {
    # Domains in allow_out need everything else denied.
    allow_out = ["pypi.org", "*.pythonhosted.org", "1.1.1.1"]
    deny_out  = ["0.0.0.0/0"]
  }

  timeouts {
    create = "5m"
  }
}

output "sandbox_host" {
  value = "49983-${e2b_sandbox.example.id}.${e2b_sandbox.example.domain}"
}
