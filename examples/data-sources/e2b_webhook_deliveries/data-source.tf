variable "webhook_id" {
  type = string
}

# The last day's failed attempts, newest event first, read 50 events a page.
data "e2b_webhook_deliveries" "failed" {
  webhook_id = var.webhook_id
  statuses   = ["failed"]
  start      = timeadd(plantimestamp(), "-24h")
  page_size  = 50
  limit      = 200
}

output "failing_deliveries" {
  value = flatten([
    for e in data.e2b_webhook_deliveries.failed.events : [
      for a in e.attempts : "${a.timestamp} ${e.event_type} ${a.error_class} ${coalesce(a.response_status_code, 0)}"
    ]
  ])
}

# Warn on every plan while the endpoint is failing.
check "webhook_endpoint_healthy" {
  assert {
    condition     = data.e2b_webhook_deliveries.failed.failed_attempts == 0
    error_message = "The webhook endpoint failed ${data.e2b_webhook_deliveries.failed.failed_attempts} deliveries in the last day."
  }
}
