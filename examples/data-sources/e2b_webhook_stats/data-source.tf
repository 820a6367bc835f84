variable "webhook_id" {
  type = string
}

# Delivery stats of the last 24 hours (E2B's default range).
data "e2b_webhook_stats" "hook" {
  webhook_id = var.webhook_id
}

output "webhook_failure_rate" {
  value = data.e2b_webhook_stats.hook.total == 0 ? 0 : data.e2b_webhook_stats.hook.failed / data.e2b_webhook_stats.hook.total
}

output "webhook_slowest_delivery" {
  value = data.e2b_webhook_stats.hook.duration_maximum
}
