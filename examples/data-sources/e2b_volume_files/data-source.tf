data "e2b_volume" "models" {
  name = "models"
}

# What the weights folder holds, two levels deep.
data "e2b_volume_files" "weights" {
  volume_id = data.e2b_volume.models.volume_id
  path      = "/weights"
  depth     = 2
}

output "weight_files" {
  value = {
    for e in data.e2b_volume_files.weights.entries : e.path => e.size if e.type == "file"
  }
}
