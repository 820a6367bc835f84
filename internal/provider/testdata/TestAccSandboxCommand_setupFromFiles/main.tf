# A sandbox with three files and a setup command whose output depends on them: it runs again
# when one changes.
variable "b" { type = string }
variable "max_output_bytes" { type = number }

resource "e2b_sandbox" "test" {
  timeout = "15m"
}

resource "e2b_sandbox_file" "a" {
  sandbox_id = e2b_sandbox.test.id
  path       = "app/a.txt"
  content    = "alpha\n"
}

resource "e2b_sandbox_file" "b" {
  sandbox_id = e2b_sandbox.test.id
  path       = "app/b.txt"
  content    = var.b
}

resource "e2b_sandbox_file" "c" {
  sandbox_id     = e2b_sandbox.test.id
  path           = "app/c.txt"
  content_base64 = base64encode("gamma\n")
}

resource "e2b_sandbox_command" "test" {
  sandbox_id       = e2b_sandbox.test.id
  command          = "cat a.txt b.txt c.txt; echo \"files: $(ls | wc -l)\" >&2"
  cwd              = "app"
  max_output_bytes = var.max_output_bytes

  triggers = {
    a = e2b_sandbox_file.a.sha256
    b = e2b_sandbox_file.b.sha256
    c = e2b_sandbox_file.c.sha256
  }
}
