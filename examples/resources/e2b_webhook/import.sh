# A webhook is imported by its ID; give its secret in the configuration.
terraform import e2b_webhook.lifecycle 5f1c2e9a-0d1b-4f5e-9a53-1f0e8c2b7d44
