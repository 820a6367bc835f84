# A snapshot is imported by <sandbox_id>:<snapshot_id> (the source sandbox, then the snapshot ID with its tag;
# a named snapshot's own tag, or "default" for one made elsewhere, whose destroy deletes its whole template).
terraform import e2b_snapshot.ready i1a2b3c4d5e6f7g8h9:my-team/python-with-requests:snap-0123456789abcdef
