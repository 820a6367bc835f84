# A sandbox with settings of every kind, and its fork, which takes them from its source.
variable "secure" { type = bool }
variable "fork_timeout" { type = string }

resource "e2b_sandbox" "source" {
  template              = "agent"
  timeout               = "15m"
  auto_pause            = true
  auto_resume           = true
  allow_internet_access = false
  secure                = var.secure
  metadata              = { owner = "team-a" }
}

resource "e2b_sandbox" "fork" {
  fork_from = e2b_sandbox.source.id
  timeout   = var.fork_timeout
}
