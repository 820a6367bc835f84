resource "e2b_volume" "models" {
  name = "models"
}

# Seed the volume without starting a sandbox: missing directories are created.
resource "e2b_volume_file" "config" {
  volume_id = e2b_volume.models.id
  path      = "/config/serving.json"
  content = jsonencode({
    model = "small"
  })
  mode = "0640"
  uid  = 1000
  gid  = 1000
}

# A local file, streamed (never held in memory); editing it locally plans a rewrite.
resource "e2b_volume_file" "weights" {
  volume_id = e2b_volume.models.id
  path      = "/weights/small.bin"
  source    = "${path.module}/small.bin"
}

# Sandboxes that mount the volume see the files.
resource "e2b_sandbox" "server" {
  volume_mounts = { (e2b_volume.models.name) = "/mnt/models" }
  depends_on    = [e2b_volume_file.config, e2b_volume_file.weights]
}
