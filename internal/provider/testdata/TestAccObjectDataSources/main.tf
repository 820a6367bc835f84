# Every object data source of the team types, by ID and by name; the secret and the webhook
# were made out of band.
variable "secret_id" { type = string }
variable "webhook_id" { type = string }

resource "e2b_volume" "data" {
  name = "acc-lookup-volume"
}
resource "e2b_volume_file" "a" {
  volume_id = e2b_volume.data.id
  path      = "/seed/a.txt"
  content   = "abc"
  mode      = "0600"
}
resource "e2b_volume_file" "b" {
  volume_id = e2b_volume.data.id
  path      = "/seed/deeper/b.txt"
  content   = "b"
}
data "e2b_volume" "by_id" {
  volume_id = e2b_volume.data.id
}
data "e2b_volume" "by_name" {
  name = e2b_volume.data.name
}
data "e2b_volume_files" "seed" {
  depends_on = [e2b_volume_file.a, e2b_volume_file.b]
  volume_id  = e2b_volume.data.id
  path       = "/seed"
}
data "e2b_volume_files" "root_deep" {
  depends_on = [e2b_volume_file.a, e2b_volume_file.b]
  volume_id  = e2b_volume.data.id
  depth      = 3
}
data "e2b_secret" "by_name" {
  name = "acc-lookup"
}
data "e2b_secret" "by_id" {
  secret_id = var.secret_id
}
data "e2b_webhook" "by_name" {
  name = "lookup-hook"
}
data "e2b_webhook" "by_id" {
  id = var.webhook_id
}
