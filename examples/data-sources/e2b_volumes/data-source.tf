data "e2b_volumes" "all" {}

output "volume_names" {
  value = data.e2b_volumes.all.volumes[*].name
}
