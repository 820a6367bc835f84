# terraform query: every lifecycle webhook of the team.
list "e2b_webhook" "all" {
  provider         = e2b
  include_resource = true
}
