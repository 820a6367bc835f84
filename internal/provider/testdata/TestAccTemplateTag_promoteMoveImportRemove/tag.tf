# Beside the template e2b_template.app: its prod tag, a sandbox from name:prod and the data
# sources that read the tag and the build.
resource "e2b_template_tag" "prod" {
  template = e2b_template.app.name
  tag      = "prod"
  build_id = e2b_template.app.build_id
}

resource "e2b_sandbox" "prod" {
  template = "${e2b_template_tag.prod.template}:${e2b_template_tag.prod.tag}"
}

data "e2b_template" "app" {
  name       = e2b_template.app.name
  depends_on = [e2b_template_tag.prod]
}

# E2B's public base template: readable, its tags are not ours to list.
data "e2b_template" "base" {
  name = "base"
}

data "e2b_templates" "all" {
  depends_on = [e2b_template_tag.prod]
}

data "e2b_template_build" "current" {
  template  = e2b_template.app.template_id
  build_id  = e2b_template.app.build_id
  log_limit = 3
}
