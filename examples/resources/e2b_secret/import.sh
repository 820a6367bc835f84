# A secret is imported by its ID (sec_...) or its name. E2B never returns its value: without value (or null, as
# `terraform query` writes it) the secret keeps the value E2B has, with no change planned; setting value with
# value_version later stores a new version in place.
terraform import e2b_secret.github github-token
