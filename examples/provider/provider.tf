terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b" # not in the hashicorp namespace: every configuration names it
    }
  }
}

# The API key comes from E2B_API_KEY when api_key is not set.
provider "e2b" {
  # api_key = var.e2b_api_key

  # Retry rate-limited (429) requests, and 5xx answers on calls that are safe to repeat.
  max_retries    = 4
  retry_wait_min = "500ms"
  retry_wait_max = "10s"

  # Merged into the metadata of every sandbox (a sandbox's own keys win).
  default_metadata = {
    managed-by = "terraform"
    team       = "platform"
  }
}
