# A sandbox for this run only: created when the run needs it, renewed while the run goes on,
# killed at its end. Nothing about it is written to state or plan files.
ephemeral "e2b_sandbox" "smoke" {
  template = "base"
  timeout  = "10m"
  ports    = [8080]
  env_vars = {
    STAGE = "ci"
  }

  # Written when the sandbox opens, before anything uses it: a folder (its files streamed,
  # modes kept) and a small file given as text.
  upload {
    source      = "${path.module}/tests"
    destination = "/home/user/tests"
    exclude     = ["**/__pycache__"]
  }
  upload {
    content     = "ci\n"
    destination = "/home/user/tests/stage.txt"
  }
}

# Ephemeral values reach a resource only through write-only attributes (the *_wo ones).
resource "e2b_sandbox_command" "smoke_test" {
  sandbox_id_wo = ephemeral.e2b_sandbox.smoke.id
  cwd           = "/home/user"
  command       = "python3 -m unittest discover -s tests -v"

  # A write-only value never shows as a change, so make every apply run the command again.
  triggers = {
    run = plantimestamp()
  }
}
