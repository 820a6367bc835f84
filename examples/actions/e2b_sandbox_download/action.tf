resource "e2b_sandbox" "ci" {
  template = "base"
}

resource "e2b_sandbox_command" "tests" {
  sandbox_id = e2b_sandbox.ci.id
  command    = "mkdir -p reports && echo '<testsuite name=\"smoke\" tests=\"1\" failures=\"0\"/>' > reports/junit.xml"

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.e2b_sandbox_download.reports]
    }
  }
}

# The reports come down after each run (and on demand with -invoke).
action "e2b_sandbox_download" "reports" {
  config {
    sandbox_id  = caller.sandbox_id
    path        = "/home/user/reports"
    destination = "${path.root}/reports"
    if_exists   = "replace"
  }
}
