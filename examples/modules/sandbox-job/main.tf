# A module that runs one job in an E2B sandbox: it writes the given files into
# a work directory, runs a command there, and returns what the command printed.
# Changing a file or the command runs the command again in the same sandbox.
#
# tests/ holds its `terraform test` / `tofu test` suite, which runs against the
# local E2B emulator in CI (see the README, "Testing your own modules").

terraform {
  required_version = ">= 1.6" # test files need Terraform 1.6+ or OpenTofu 1.6+
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}

resource "e2b_sandbox" "job" {
  template = var.template
  metadata = {
    job = var.name
  }
}

resource "e2b_sandbox_file" "input" {
  for_each = var.files

  sandbox_id = e2b_sandbox.job.id
  path       = "${var.work_dir}/${each.key}"
  content    = each.value
}

resource "e2b_sandbox_command" "run" {
  sandbox_id          = e2b_sandbox.job.id
  command             = var.command
  cwd                 = var.work_dir
  allow_non_zero_exit = var.allow_failure

  triggers = merge(
    { command = var.command },
    { for name, file in e2b_sandbox_file.input : "file:${name}" => file.sha256 },
  )
}
