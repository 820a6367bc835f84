# Why did the last build fail? The status, the reason and the last log lines.
data "e2b_template_build" "last" {
  template  = "my-app"
  build_id  = "4f2a6c1e-0b7d-4e59-9a3c-2d8e1f6b7a90"
  log_limit = 20
  log_level = "warn"
}

output "build_status" {
  value = data.e2b_template_build.last.status
}

# The reason and the log are sensitive: a build's log holds whatever its steps
# print. `terraform output -raw failure` shows it.
output "failure" {
  value     = data.e2b_template_build.last.reason
  sensitive = true
}
