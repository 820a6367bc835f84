# A sandbox for this run only: created when the run needs it, renewed while the run goes on,
# killed at its end. Nothing about it is written to state or plan files.
ephemeral "e2b_sandbox" "smoke" {
  template = "base"
  timeout  = "10m"
  ports    = [8080]
  env_vars = {
    STAGE = "ci"
  }
}

# Ephemeral values reach a resource only through write-only attributes (the *_wo ones).
resource "e2b_sandbox_command" "smoke_test" {
  sandbox_id_wo = ephemeral.e2b_sandbox.smoke.id
  command       = "python3 -c 'import sys; print(sys.version)'"

  # A write-only value never shows as a change, so make every apply run the command again.
  triggers = {
    run = plantimestamp()
  }
}
