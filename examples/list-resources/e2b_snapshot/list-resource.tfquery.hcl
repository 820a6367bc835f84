# terraform query: the snapshots of one name (both filters are optional).
list "e2b_snapshot" "ready" {
  provider         = e2b
  include_resource = true

  config {
    name = "python-with-requests"
  }
}
