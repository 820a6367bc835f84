# The sandbox's work outlives it: `terraform destroy`, `-replace` or a change that replaces the
# sandbox first snapshots it as "dev-workspace". A sandbox created with
# template = "dev-workspace" starts from the newest snapshot of the name.
resource "e2b_sandbox" "dev" {
  template = "base"
  timeout  = "1h"

  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.e2b_sandbox_snapshot.keep]
      on_failure = halt # the default: without a snapshot, the sandbox is not destroyed
    }
  }
}

# Also on demand: terraform apply -invoke=action.e2b_sandbox_snapshot.keep
action "e2b_sandbox_snapshot" "keep" {
  config {
    # caller is the resource whose action_trigger runs the action.
    sandbox_id = caller.id
    name       = "dev-workspace"
  }
}
