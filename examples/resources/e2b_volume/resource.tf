# A volume keeps its files after the sandboxes that mount it are gone.
resource "e2b_volume" "cache" {
  name = "build-cache"
}

# Two sandboxes share it, at different paths.
resource "e2b_sandbox" "builder" {
  volume_mounts = { (e2b_volume.cache.name) = "/mnt/cache" }
}

resource "e2b_sandbox" "tester" {
  volume_mounts = { (e2b_volume.cache.name) = "/home/user/cache" }
}

# The token of the volume-content API reaches the state only on request.
resource "e2b_volume" "shared_with_ci" {
  name         = "artifacts"
  expose_token = true
}
