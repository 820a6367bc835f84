resource "e2b_sandbox" "dev" {
  template = "base"
}

# Text content; the path is relative to the user's home (/home/user/app/config.json).
resource "e2b_sandbox_file" "config" {
  sandbox_id = e2b_sandbox.dev.id
  path       = "app/config.json"
  content = jsonencode({
    port = 3000
  })
}

# A local file, streamed; editing it locally plans a rewrite.
resource "e2b_sandbox_file" "script" {
  sandbox_id = e2b_sandbox.dev.id
  path       = "/home/user/app/setup.sh"
  source     = "${path.module}/setup.sh"
}

# Binary content (base64, e.g. from filebase64()), written as root.
resource "e2b_sandbox_file" "marker" {
  sandbox_id     = e2b_sandbox.dev.id
  path           = "/opt/app/marker.bin"
  content_base64 = "AAECAwQF"
  user           = "root"
}
