# A secret's metadata by name (or by secret_id); E2B never returns the value.
data "e2b_secret" "github" {
  name = "github-token"
}

output "github_token_version" {
  value = data.e2b_secret.github.current_version
}
