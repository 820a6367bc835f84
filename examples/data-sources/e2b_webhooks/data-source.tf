data "e2b_webhooks" "all" {}

output "webhook_urls" {
  value = data.e2b_webhooks.all.webhooks[*].url
}
