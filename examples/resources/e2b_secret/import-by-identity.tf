# Terraform and OpenTofu 1.12 or later can import by resource identity. E2B never returns the value:
# an imported secret keeps its value until you set value (with value_version) to store a new version.
import {
  to = e2b_secret.github
  identity = {
    secret_id = "sec_0123456789abcdefghijklmn"
  }
}
