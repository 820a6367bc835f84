# Look a volume up by name (or by volume_id), e.g. to mount one made elsewhere.
data "e2b_volume" "shared" {
  name = "shared-data"
}

resource "e2b_sandbox" "worker" {
  volume_mounts = { (data.e2b_volume.shared.name) = "/mnt/shared" }
}
