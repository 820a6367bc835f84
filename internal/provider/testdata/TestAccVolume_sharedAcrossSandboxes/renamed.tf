resource "e2b_volume" "shared" {
  name = "acc-renamed"
}
