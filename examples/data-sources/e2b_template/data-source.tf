# Look a template up by name (or by template_id) with all its builds.
data "e2b_template" "python" {
  name = "my-team/python:v2"
}

output "latest_build_status" {
  value = data.e2b_template.python.builds[length(data.e2b_template.python.builds) - 1].status
}

# Which build does each tag point at?
output "tags" {
  value = { for t in data.e2b_template.python.tags : t.tag => t.build_id }
}
