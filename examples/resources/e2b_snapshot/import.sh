# A snapshot is imported by <sandbox_id>:<snapshot_id> (the source sandbox, then the snapshot ID with its tag).
terraform import e2b_snapshot.ready i1a2b3c4d5e6f7g8h9:my-team/python-with-requests:default
