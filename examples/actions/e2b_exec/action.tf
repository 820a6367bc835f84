resource "e2b_sandbox" "dev" {
  template = "base"

  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.e2b_exec.setup]
    }
  }
}

# Runs after the sandbox is created, or on demand:
#   terraform apply -invoke=action.e2b_exec.setup
action "e2b_exec" "setup" {
  config {
    sandbox_id = e2b_sandbox.dev.id
    command    = "pip install --user -r requirements.txt && python3 -m pytest -q"
    cwd        = "/home/user/app"
    timeout    = "15m"
    env = {
      PIP_DISABLE_PIP_VERSION_CHECK = "1"
    }
  }
}
