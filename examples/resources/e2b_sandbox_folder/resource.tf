resource "e2b_sandbox" "dev" {
  template = "base"
}

# The files of ./app, copied to /home/user/app with their modes (run.sh stays executable).
# Editing, adding or removing a local file plans an update that writes or removes just that
# file; a file changed inside the sandbox plans its rewrite.
resource "e2b_sandbox_folder" "app" {
  sandbox_id  = e2b_sandbox.dev.id
  source      = "${path.module}/app"
  destination = "/home/user/app"
  exclude     = [".git", "node_modules", "**/__pycache__"]
}

# Runs the app again whenever a file of the folder changes.
resource "e2b_sandbox_command" "run" {
  sandbox_id = e2b_sandbox.dev.id
  cwd        = e2b_sandbox_folder.app.destination
  command    = "./run.sh"
  triggers = {
    app = e2b_sandbox_folder.app.sha256
  }
}
