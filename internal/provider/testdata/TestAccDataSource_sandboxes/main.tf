# The sandbox data sources over 105 running sandboxes of one suite (first is one of them, with
# a snapshot), one paused sandbox of another, and metrics of an hour still to come.
variable "first" { type = string }
variable "started_after" { type = string }
variable "future_start" { type = string }
variable "future_end" { type = string }

data "e2b_sandboxes" "suite" {
  metadata      = { suite = "ds" }
  started_after = var.started_after
}
data "e2b_sandboxes" "paused" { states = ["paused"] }
data "e2b_sandboxes" "by_template" {
  template = "base"
  states   = ["running"]
}
data "e2b_sandbox" "one" { id = var.first }
data "e2b_sandbox_metrics" "one" { sandbox_id = var.first }
data "e2b_sandbox_metrics" "future" {
  sandbox_id = var.first
  start      = var.future_start
  end        = var.future_end
}
data "e2b_sandbox_logs" "one" {
  sandbox_id = var.first
  limit      = 5
}
data "e2b_sandbox_logs" "search" {
  sandbox_id = var.first
  search     = "Snapshot"
  direction  = "forward"
}
data "e2b_sandbox_logs" "warnings" {
  sandbox_id = var.first
  level      = "warn"
}
data "e2b_snapshots" "of_first" { sandbox_id = var.first }
data "e2b_snapshots" "all" {}
