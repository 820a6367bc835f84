# terraform query: the tags of one template (leave config out for every template's tags).
list "e2b_template_tag" "python_app" {
  provider         = e2b
  include_resource = true

  config {
    template = "python-app"
  }
}
