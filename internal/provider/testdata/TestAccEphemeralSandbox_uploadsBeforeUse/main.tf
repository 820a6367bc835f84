# An ephemeral sandbox gets a folder (less node_modules), a content and a file before the
# command uses it; the command checks the folder's digest against var.digest.
variable "app" { type = string }
variable "check" { type = string }
variable "digest" { type = string }

ephemeral "e2b_sandbox" "ci" {
  upload {
    source      = var.app
    destination = "/home/user/app"
    exclude     = ["node_modules"]
  }
  upload {
    content     = "STAGE=ci\n"
    destination = "/home/user/app/.env"
  }
  upload {
    source      = var.check
    destination = "/home/user/bin/check"
  }
}

resource "e2b_sandbox_command" "test" {
  sandbox_id_wo = ephemeral.e2b_sandbox.ci.id
  command       = <<-EOT
    cd ~/app && ./main.sh && cat .env && ~/bin/check
    test ! -e node_modules || echo "node_modules was uploaded"
    test "$DIGEST" = "${var.digest}" || echo "digest $DIGEST"
  EOT
  env_wo        = { DIGEST = ephemeral.e2b_sandbox.ci.upload[0].sha256 }
}
