# terraform query: every volume of the team.
list "e2b_volume" "all" {
  provider         = e2b
  include_resource = true
}
