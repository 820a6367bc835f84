resource "e2b_sandbox" "dev" {
  template = "base"
}

resource "e2b_sandbox_file" "requirements" {
  sandbox_id = e2b_sandbox.dev.id
  path       = "app/requirements.txt"
  content    = "requests==2.32.3\n"
}

# Runs when created and again whenever requirements.txt changes.
resource "e2b_sandbox_command" "install" {
  sandbox_id = e2b_sandbox.dev.id
  command    = "pip install --user -r requirements.txt"
  cwd        = "app"
  timeout    = "5m"

  triggers = {
    requirements = e2b_sandbox_file.requirements.sha256
  }
}

# Record a failing command instead of failing the apply.
resource "e2b_sandbox_command" "probe" {
  sandbox_id          = e2b_sandbox.dev.id
  command             = "python3 -c 'import numpy'"
  allow_non_zero_exit = true
  max_output_bytes    = 4096
}

output "install_log" {
  value = e2b_sandbox_command.install.stdout
}

output "numpy_installed" {
  value = e2b_sandbox_command.probe.exit_code == 0
}
