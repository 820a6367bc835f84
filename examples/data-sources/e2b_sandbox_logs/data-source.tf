variable "sandbox_id" {
  type = string
}

# The 100 most recent warnings and errors mentioning "timeout".
data "e2b_sandbox_logs" "errors" {
  sandbox_id = var.sandbox_id
  level      = "warn"
  search     = "timeout"
  limit      = 100
}

output "error_messages" {
  value = [for l in data.e2b_sandbox_logs.errors.logs : "${l.timestamp} ${l.level} ${l.message}"]
}
