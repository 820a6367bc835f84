resource "e2b_sandbox" "example" {
  template = "base"
  timeout  = "1h" # a Go duration; changed in place

  # Pause instead of being killed when the timeout runs out; `paused = false`
  # in the configuration then resumes it on the next apply.
  auto_pause = true
  paused     = false
  # `paused = false` brings back the memory the pause kept (E2B's default);
  # false would cold-boot it from its disk instead: files kept, processes gone.
  resume_memory = true

  metadata = {
    purpose = "ci-runner"
  }

  env_vars = {
    APP_ENV = "staging"
  }

  network = {
    # Domains in allow_out need everything else denied.
    allow_out = ["pypi.org", "*.pythonhosted.org", "1.1.1.1"]
    deny_out  = ["0.0.0.0/0"]
    # The app inside serves HTTPS on 8443 (a self-signed certificate is fine):
    # E2B's proxy reaches it over TLS. Changing the ports replaces the sandbox.
    https_ports = [8443]
  }

  timeouts {
    create = "5m"
  }
}

output "sandbox_host" {
  value = "49983-${e2b_sandbox.example.id}.${e2b_sandbox.example.domain}"
}

# Create options: a volume, a filesystem-only auto-pause, MCP and workload identity.
resource "e2b_volume" "data" {
  name = "agent-data"
}

resource "e2b_sandbox" "agent" {
  volume_mounts = { (e2b_volume.data.name) = "/mnt/data" }

  # On timeout keep only the files: a resume reboots the sandbox.
  auto_pause        = true
  auto_pause_memory = false

  mcp = jsonencode({
    github = { token = "placeholder" }
  })

  iam = {
    aws = { audience = "sts.amazonaws.com", token_type = "jwt" }
  }
}

# A copy of a running sandbox, through E2B's fork API.
resource "e2b_sandbox" "agent_copy" {
  fork_from = e2b_sandbox.agent.id
}

# Egress the E2B way: a rule sets headers on requests to one domain, filling a secret's value
# and a workload token per request, and all egress goes through a SOCKS5 proxy of your own.
variable "proxy_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "e2b_sandbox" "egress" {
  iam = {
    internal = { audience = "api.internal.example.com", token_type = "JWT-SVID" }
  }
  network = {
    allow_out = ["api.openai.com", "api.internal.example.com"]
    deny_out  = ["0.0.0.0/0"]
    rules = {
      "api.openai.com" = {
        headers = { Authorization = "Bearer ${provider::e2b::secret_ref("openai-key")}" }
      }
      "api.internal.example.com" = {
        headers = { Authorization = "Bearer ${provider::e2b::iam_token_ref("internal")}" }
      }
    }
    egress_proxy = {
      address             = "proxy.example.com:1080"
      username            = "sandbox"
      password_wo         = var.proxy_password # write-only: never in plan or state
      password_wo_version = 1                  # change it to send a new password
    }
  }
}
