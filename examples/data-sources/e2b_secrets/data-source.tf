data "e2b_secrets" "all" {}

output "secret_versions" {
  value = { for s in data.e2b_secrets.all.secrets : s.name => s.current_version }
}
