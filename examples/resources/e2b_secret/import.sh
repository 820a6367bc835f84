# A secret is imported by its ID (sec_...) or its name; its value cannot be read back.
terraform import e2b_secret.github github-token
