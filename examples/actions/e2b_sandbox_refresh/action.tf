resource "e2b_sandbox" "ci" {
  template = "base"
  timeout  = "30m"
}

# A pipeline step that runs long: terraform apply -auto-approve -invoke=action.e2b_sandbox_refresh.longer
# The sandbox lives at least 20 more minutes; its timeout, and the plan, stay as they are.
action "e2b_sandbox_refresh" "longer" {
  config {
    sandbox_id = e2b_sandbox.ci.id
    duration   = "20m"
  }
}
