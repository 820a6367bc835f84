resource "e2b_secret" "token" {
  name = "identity-secret"
}
