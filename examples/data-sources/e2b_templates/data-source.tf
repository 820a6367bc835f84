# Every template of your team (all pages).
data "e2b_templates" "all" {}

output "template_names" {
  value = flatten([for t in data.e2b_templates.all.templates : t.names])
}
