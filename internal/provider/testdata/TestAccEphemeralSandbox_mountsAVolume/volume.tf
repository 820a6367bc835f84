resource "e2b_volume" "out" {
  name = "job-output"
}
