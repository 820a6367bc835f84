# By template ID or by name. E2B does not return a template's build inputs, so
# the first apply after an import builds once (E2B's cache reuses unchanged steps).
terraform import e2b_template.python_app python-app
