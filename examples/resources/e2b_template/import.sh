# By template ID or by name. E2B does not return a template's build inputs (base, steps, files, registry
# credentials): a block without any base (as `terraform query` writes it) adopts the template as it is, with
# no change planned; giving the base and steps builds once (E2B's cache reuses unchanged steps).
terraform import e2b_template.python_app python-app
