resource "e2b_template" "app" {
  name          = "acc-gone"
  from_template = "base"
  steps         = [{ run = { command = "echo built" } }]
}

resource "e2b_template_tag" "prod" {
  template = e2b_template.app.name
  tag      = "prod"
  build_id = e2b_template.app.build_id
}
