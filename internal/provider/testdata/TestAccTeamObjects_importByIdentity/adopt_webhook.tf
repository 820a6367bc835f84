resource "e2b_webhook" "hook" {
  url    = "https://hooks.example/identity"
  events = ["sandbox.lifecycle.killed"]
}
