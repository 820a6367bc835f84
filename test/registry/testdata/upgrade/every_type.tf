# Every resource type with the options a user's state carries: applied with the previous release,
# then planned with the new one (TestUpgrade). All of it applies offline against the emulator.

resource "e2b_volume" "data" {
  name = "upgrade-data"
}

resource "e2b_volume_file" "seed" {
  volume_id = e2b_volume.data.volume_id
  path      = "/seed.txt"
  content   = "seed"
}

resource "e2b_sandbox" "full" {
  template = "base"
  timeout  = "1h"
  metadata = { purpose = "upgrade" }
  env_vars = { APP_ENV = "test" }

  volume_mounts = { (e2b_volume.data.name) = "/mnt/data" }

  network = {
    allow_out = ["pypi.org", "api.example.com"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "api.example.com" = {
        headers = { X-Team = "upgrade" }
      }
    }
  }
}

resource "e2b_sandbox" "proxied" {
  network = {
    egress_proxy = {
      address             = "127.0.0.1:1080"
      username            = "sandbox"
      password_wo         = "not-a-real-password"
      password_wo_version = 1
    }
  }
}

resource "e2b_sandbox" "paused" {
  paused       = true
  pause_memory = false
}

resource "e2b_sandbox" "fork" {
  fork_from = e2b_sandbox.full.id
}

# The lifecycle and traffic options a sandbox's state carries besides the network rules.
resource "e2b_sandbox" "lifecycle" {
  auto_pause            = true
  auto_resume           = true
  allow_internet_access = false
  store_access_tokens   = false
  network = {
    allow_public_traffic = false
  }
}

# secure = false: a v1 create (v2 always secures a sandbox's traffic).
resource "e2b_sandbox" "unsecured" {
  secure = false
}

resource "e2b_sandbox_file" "config" {
  sandbox_id = e2b_sandbox.full.id
  path       = "/home/user/config.json"
  content    = jsonencode({ env = "test" })
}

resource "e2b_sandbox_folder" "site" {
  sandbox_id  = e2b_sandbox.full.id
  source      = "${path.module}/site"
  destination = "/home/user/site"
}

resource "e2b_sandbox_command" "setup" {
  sandbox_id = e2b_sandbox.full.id
  command    = "echo ready"
}

resource "e2b_snapshot" "full" {
  sandbox_id = e2b_sandbox.full.id
  name       = "upgrade-snap"
}

resource "e2b_template" "app" {
  name          = "upgrade-app"
  from_template = "base"
  context       = "${path.module}/app"
  steps = [
    { copy = { src = "main.py", dest = "/home/user/app/" } },
    { env = { APP_ENV = "production" } },
  ]
  start_cmd = "python /home/user/app/main.py"
}

resource "e2b_template_tag" "prod" {
  template = e2b_template.app.name
  tag      = "prod"
  build_id = e2b_template.app.build_id
}
