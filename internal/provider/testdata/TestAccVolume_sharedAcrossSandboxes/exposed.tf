resource "e2b_volume" "exposed" {
  name         = "acc-exposed"
  expose_token = true
}
