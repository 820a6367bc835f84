# Quickstart: one sandbox, two files, a command whose output depends on them,
# a snapshot, and pause/resume through a variable.
#
# Credentials come from the environment, so this file works unchanged against
# real E2B (E2B_API_KEY) and against the local emulator (`make demo` also sets
# E2B_API_URL and E2B_SANDBOX_URL).

terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

provider "e2b" {
  # Merged into the metadata of every sandbox, like AWS default_tags.
  default_metadata = {
    created_by = "terraform-quickstart"
  }
}

resource "e2b_sandbox" "dev" {
  template = "base"
  timeout  = "15m" # changing it later updates the sandbox in place
  paused   = var.paused

  metadata = {
    purpose = "quickstart"
  }
}

resource "e2b_sandbox_file" "greeting" {
  sandbox_id = e2b_sandbox.dev.id
  path       = "/home/user/app/greeting.txt"
  content    = "Hello, ${var.name}!\n"
}

resource "e2b_sandbox_file" "script" {
  sandbox_id = e2b_sandbox.dev.id
  path       = "/home/user/app/report.sh"
  source     = "${path.module}/files/report.sh" # streamed from this machine
}

# Runs on create and again whenever a trigger changes (works on OpenTofu and
# on every Terraform version; Terraform 1.14+ users can also use the e2b_exec action).
resource "e2b_sandbox_command" "report" {
  sandbox_id = e2b_sandbox.dev.id
  command    = "bash /home/user/app/report.sh"
  cwd        = "/home/user/app"

  triggers = {
    greeting = e2b_sandbox_file.greeting.sha256
    script   = e2b_sandbox_file.script.sha256
  }
}

# A snapshot of the sandbox after the files were written: a new sandbox with
# `template = e2b_snapshot.after_setup.snapshot_id` starts with those files.
resource "e2b_snapshot" "after_setup" {
  sandbox_id = e2b_sandbox.dev.id
  name       = "quickstart-${e2b_sandbox.dev.id}"

  depends_on = [e2b_sandbox_command.report]
}
