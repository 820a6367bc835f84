resource "e2b_sandbox" "box" {
  timeout = "15m"
  paused  = var.paused
}
