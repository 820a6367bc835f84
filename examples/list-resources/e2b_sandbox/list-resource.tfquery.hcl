# terraform query: list running sandboxes labelled team = "data", ready to import.
list "e2b_sandbox" "data_team" {
  provider = e2b

  config {
    states = ["running"]
    metadata = {
      team = "data"
    }
  }
}
