# Terraform and OpenTofu 1.12 or later can import by resource identity: the snapshot ID with its tag.
# E2B does not name a snapshot's source sandbox, so an imported snapshot needs no sandbox_id.
import {
  to = e2b_snapshot.ready
  identity = {
    snapshot_id = "my-team/python-with-requests:snap-0123456789abcdef"
  }
}
