output "sandbox_id" {
  description = "ID of the sandbox the job ran in."
  value       = e2b_sandbox.job.id
}

output "exit_code" {
  description = "Exit code of the command."
  value       = e2b_sandbox_command.run.exit_code
}

output "stdout" {
  description = "What the command printed on standard output."
  value       = e2b_sandbox_command.run.stdout
}

output "stderr" {
  description = "What the command printed on standard error."
  value       = e2b_sandbox_command.run.stderr
}
