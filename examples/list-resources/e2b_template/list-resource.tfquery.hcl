# terraform query -generate-config-out=generated.tf: every template of the team, with configuration
# and import blocks. E2B does not return build inputs: add the base and steps when you want to build.
list "e2b_template" "all" {
  provider         = e2b
  include_resource = true
}
