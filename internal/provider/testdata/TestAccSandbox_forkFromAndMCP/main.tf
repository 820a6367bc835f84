# A sandbox with an MCP server (var.mcp_server) and a file, and its fork, which reads the file.
variable "mcp_server" { type = string }

resource "e2b_sandbox" "source" {
  timeout = "15m"
  mcp     = jsonencode({ (var.mcp_server) = { token = "x" } })
  iam     = { aws = { audience = "sts.amazonaws.com", token_type = "jwt" } }
}
resource "e2b_sandbox_command" "seed" {
  sandbox_id = e2b_sandbox.source.id
  command    = "echo from-source > ~/seed.txt"
}
resource "e2b_sandbox" "fork" {
  depends_on = [e2b_sandbox_command.seed]
  fork_from  = e2b_sandbox.source.id
  timeout    = "15m"
}
resource "e2b_sandbox_command" "read" {
  sandbox_id = e2b_sandbox.fork.id
  command    = "cat ~/seed.txt"
}
