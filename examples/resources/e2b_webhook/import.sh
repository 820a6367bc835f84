# A webhook is imported by its ID. E2B never returns its signature secret: leave signature_secret (and url)
# out, or null as `terraform query` writes them, and the webhook keeps what E2B has, with no change planned;
# setting signature_secret with signature_secret_version later sends it in place.
terraform import e2b_webhook.lifecycle 5f1c2e9a-0d1b-4f5e-9a53-1f0e8c2b7d44
