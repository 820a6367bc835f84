# A job in an ephemeral sandbox writes to the volume; a sandbox made after reads it.
ephemeral "e2b_sandbox" "job" {
  volume_mounts = { (e2b_volume.out.name) = "/mnt/out" }
}

resource "e2b_sandbox_command" "job" {
  sandbox_id_wo = ephemeral.e2b_sandbox.job.id
  cwd           = "/mnt/out"
  command       = "echo result-42 > result.txt"
}

resource "e2b_sandbox" "reader" {
  depends_on    = [e2b_sandbox_command.job]
  volume_mounts = { (e2b_volume.out.name) = "/data" }
}

resource "e2b_sandbox_command" "read" {
  sandbox_id = e2b_sandbox.reader.id
  cwd        = "/data"
  command    = "cat result.txt"
}
