# A note from content, a script from a local file and a binary file from base64, in one sandbox.
variable "note" { type = string }
variable "script" { type = string }

resource "e2b_sandbox" "test" {
  timeout = "15m"
}

resource "e2b_sandbox_file" "note" {
  sandbox_id = e2b_sandbox.test.id
  path       = "notes/hello.txt"
  content    = var.note
}

resource "e2b_sandbox_file" "script" {
  sandbox_id = e2b_sandbox.test.id
  path       = "~/bin/setup.sh"
  source     = var.script
}

resource "e2b_sandbox_file" "bin" {
  sandbox_id     = e2b_sandbox.test.id
  path           = "/opt/data/blob.bin"
  content_base64 = "AAEC/w=="
  user           = "root"
}
