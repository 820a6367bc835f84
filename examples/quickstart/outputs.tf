output "sandbox_id" {
  description = "ID of the sandbox."
  value       = e2b_sandbox.dev.id
}

output "sandbox_state" {
  description = "running or paused."
  value       = e2b_sandbox.dev.state
}

output "report" {
  description = "What the command printed."
  value       = e2b_sandbox_command.report.stdout
}

output "report_exit_code" {
  description = "Exit code of the command."
  value       = e2b_sandbox_command.report.exit_code
}

output "greeting_sha256" {
  description = "SHA-256 of the greeting file as written in the sandbox."
  value       = e2b_sandbox_file.greeting.sha256
}

output "snapshot_id" {
  description = "Template ID of the snapshot; usable as the template of a new sandbox."
  value       = e2b_snapshot.after_setup.snapshot_id
}
