# From typed steps and a local folder.
resource "e2b_template" "python_app" {
  name          = "python-app"
  from_template = "base"
  context       = "${path.module}/app"
  cpu_count     = 2
  memory_mb     = 1024
  # Free space (MiB) the build leaves on the filesystem after its steps.
  min_free_disk_mb = 2048

  steps = [
    { copy = { src = "requirements.txt", dest = "/home/user/app/" } },
    { run = { command = "pip install -r /home/user/app/requirements.txt", user = "root" } },
    { copy = { src = "src", dest = "/home/user/app/src" } },
    { env = { APP_ENV = "production" } },
    { workdir = "/home/user/app" },
    { user = "user" },
  ]

  start_cmd = "python -m src.server --port 8000"
  ready     = { port = 8000 }
}

# From a Dockerfile: its COPY lines take files from `context`. Terraform's own
# files in it (.terraform, state, lock files, saved plans) are never sent.
resource "e2b_template" "from_dockerfile" {
  name                 = "node-tools"
  dockerfile           = file("${path.module}/Dockerfile")
  context              = path.module
  normalize_file_modes = true # a checkout under another umask builds nothing new
}

# From an image in a private registry; the password is write-only.
resource "e2b_template" "private_image" {
  name = "internal-base"
  from_image_registry = {
    image                  = "ghcr.io/acme/sandbox-base:2.3"
    username               = "acme-bot"
    password_wo            = var.registry_token
    credentials_wo_version = 1
  }
}

variable "registry_token" {
  type      = string
  sensitive = true
  ephemeral = true
}
