resource "e2b_sandbox" "dev" {
  template = "base"
  timeout  = "1h"

  lifecycle {
    # Paused and resumed by actions on a schedule: plans leave paused as the actions left it.
    ignore_changes = [paused]
  }
}

# Every evening: terraform apply -auto-approve -invoke=action.e2b_sandbox_pause.night
action "e2b_sandbox_pause" "night" {
  config {
    sandbox_id = e2b_sandbox.dev.id
    memory     = true # keep running processes; false keeps the files only
  }
}
