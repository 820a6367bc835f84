# terraform query: every secret of the team (metadata only; E2B never returns a value).
list "e2b_secret" "all" {
  provider         = e2b
  include_resource = true
}
