output "template_id" {
  value = e2b_template.app.template_id
}

output "build_id" {
  description = "The build this apply made (or kept)."
  value       = e2b_template.app.build_id
}

output "context_sha256" {
  description = "Digest of the files the COPY lines send, computed at plan time."
  value       = e2b_template.app.context_sha256
}

output "smoke_test" {
  value = trimspace(e2b_sandbox_command.smoke_test.stdout)
}

output "prod" {
  description = "Start sandboxes from this: the last build that passed its smoke test."
  value       = "${e2b_template_tag.prod.template}:${e2b_template_tag.prod.tag} -> ${e2b_template_tag.prod.build_id}"
}
