resource "e2b_snapshot" "snap" {}
