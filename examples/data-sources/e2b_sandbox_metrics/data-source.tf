variable "sandbox_id" {
  type = string
}

# CPU, memory and disk samples for the last hour of a sandbox.
data "e2b_sandbox_metrics" "recent" {
  sandbox_id = var.sandbox_id
  start      = timeadd(plantimestamp(), "-1h")
}

output "peak_cpu_pct" {
  value = max(0, [for m in data.e2b_sandbox_metrics.recent.metrics : m.cpu_used_pct]...)
}
