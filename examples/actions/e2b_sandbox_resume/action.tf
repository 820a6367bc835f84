resource "e2b_sandbox" "dev" {
  template = "base"
  timeout  = "1h"

  lifecycle {
    # Paused and resumed by actions on a schedule: plans leave paused as the actions left it.
    ignore_changes = [paused]
  }
}

# Every morning: terraform apply -auto-approve -invoke=action.e2b_sandbox_resume.morning
action "e2b_sandbox_resume" "morning" {
  config {
    sandbox_id = e2b_sandbox.dev.id
    run_for    = "1h" # the sandbox's own timeout
    memory     = true # false: a cold boot from disk (files kept, processes gone)
  }
}
