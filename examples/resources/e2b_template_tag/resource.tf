resource "e2b_template" "app" {
  name          = "my-app"
  from_template = "base"
  steps         = [{ run = { command = "echo ready > /home/user/READY" } }]
}

# Point `prod` at the current build. When the template is rebuilt, the tag
# moves in place; start sandboxes from "my-app:prod".
resource "e2b_template_tag" "prod" {
  template = e2b_template.app.name
  tag      = "prod"
  build_id = e2b_template.app.build_id
}
