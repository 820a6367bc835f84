data "e2b_webhook_deliveries" "failed" {
  webhook_id = e2b_webhook.down.id
  statuses   = ["failed"]
  page_size  = 1
}
data "e2b_webhook_deliveries" "killed" {
  webhook_id  = e2b_webhook.down.id
  event_types = ["sandbox.lifecycle.killed"]
}
data "e2b_webhook_deliveries" "succeeded" {
  webhook_id = e2b_webhook.down.id
  statuses   = ["success"]
}
data "e2b_webhook_deliveries" "future" {
  webhook_id = e2b_webhook.down.id
  start      = "2999-01-01T00:00:00Z"
}
data "e2b_webhook_stats" "down" {
  webhook_id = e2b_webhook.down.id
}
