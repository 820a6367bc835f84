# A webhook by name (or by id); its signature secret is never returned.
data "e2b_webhook" "audit" {
  name = "audit-log"
}

output "audit_events" {
  value = data.e2b_webhook.audit.events
}
