data "e2b_team_metrics" "today" {
  team_id = "00000000-0000-0000-0000-000000000000"
  start   = "2026-11-30T00:00:00Z"
  end     = "2026-11-30T23:59:59Z"
}

output "peak_concurrency" {
  value = data.e2b_team_metrics.today.max_concurrent_sandboxes.value
}
