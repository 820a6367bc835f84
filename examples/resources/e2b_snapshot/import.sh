# A snapshot is imported by its ID with the tag: "<namespace>/<name>:<tag>" for a named snapshot, "<id>:default"
# for an unnamed one (destroying one made elsewhere deletes its whole template). E2B does not say which sandbox a
# snapshot was taken of, so sandbox_id stays out of state; "<sandbox_id>:<snapshot_id>" imports it with its sandbox.
terraform import e2b_snapshot.ready my-team/python-with-requests:snap-0123456789abcdef
