# A release's action tests it in an ephemeral sandbox, with write-only env and stdin.
ephemeral "e2b_sandbox" "ci" {
  timeout = "10m"
}

resource "terraform_data" "release" {
  input = "v1.2.3"

  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.e2b_exec.smoke_test]
    }
  }
}

action "e2b_exec" "smoke_test" {
  config {
    sandbox_id_wo = ephemeral.e2b_sandbox.ci.id
    command       = <<-EOT
      test "$RELEASE" = v1.2.3 || { echo "RELEASE is '$RELEASE'" >&2; exit 3; }
      test -n "$SANDBOX" || { echo "SANDBOX is empty" >&2; exit 4; }
      test "$(cat)" = "$SANDBOX" || { echo "stdin is not the sandbox ID" >&2; exit 5; }
    EOT
    env = {
      RELEASE = caller.input
      SANDBOX = ephemeral.e2b_sandbox.ci.id
    }
    stdin = ephemeral.e2b_sandbox.ci.id
  }
}
