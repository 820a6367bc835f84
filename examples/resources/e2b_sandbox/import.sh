# A sandbox is imported by its ID. E2B does not return the timeout, environment variables or the
# traffic access token, so those come from the configuration on the next apply.
terraform import e2b_sandbox.example i1a2b3c4d5e6f7g8h9j0
