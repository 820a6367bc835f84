# A smoke test in an ephemeral sandbox: its token and host reach the command write-only.
ephemeral "e2b_sandbox" "run" {
  timeout  = "5m"
  ports    = [8080]
  env_vars = { STAGE = "smoke" }
  metadata = { purpose = "acc-ephemeral" }
}

resource "e2b_sandbox_command" "smoke" {
  sandbox_id_wo = ephemeral.e2b_sandbox.run.id
  command       = <<-EOT
    test "$STAGE" = smoke || exit 7
    test "$${#TOKEN}" -gt 8 || exit 8
    case "$HOST" in 8080-*) echo ok ;; *) exit 9 ;; esac
  EOT
  env_wo = {
    TOKEN = ephemeral.e2b_sandbox.run.envd_access_token
    HOST  = ephemeral.e2b_sandbox.run.hosts["8080"]
  }
}
