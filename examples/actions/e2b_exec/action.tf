resource "e2b_sandbox" "dev" {
  template = "base"
}

# Uploading (or changing) the tests runs them: the action is triggered by the file.
resource "e2b_sandbox_file" "tests" {
  sandbox_id = e2b_sandbox.dev.id
  path       = "app/test_smoke.py"
  content    = <<-PY
    import os
    import unittest


    class Smoke(unittest.TestCase):
        def test_stage(self):
            self.assertEqual(os.environ["STAGE"], "ci")
  PY

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.e2b_exec.test]
    }
  }
}

# Also runs on demand: terraform apply -invoke=action.e2b_exec.test
action "e2b_exec" "test" {
  config {
    # caller is the resource whose action_trigger runs the action (e2b_sandbox_file.tests).
    sandbox_id = caller.sandbox_id
    command    = "python3 -m unittest -v"
    cwd        = "app"
    timeout    = "15m"
    env = {
      STAGE = "ci"
    }
  }
}
