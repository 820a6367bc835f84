# A sandbox for this run only. Terraform passes ephemeral values to an action only in
# write-only attributes, hence sandbox_id_wo (env and stdin are write-only too).
ephemeral "e2b_sandbox" "ci" {
  template = "base"
  timeout  = "20m"
}

resource "terraform_data" "release" {
  input = "v1.2.3"

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.e2b_exec.smoke_test]
    }
  }
}

action "e2b_exec" "smoke_test" {
  config {
    sandbox_id_wo = ephemeral.e2b_sandbox.ci.id
    command       = "echo \"smoke test of release $RELEASE\""
    env = {
      RELEASE = caller.input
    }
  }
}
