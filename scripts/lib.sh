# Shared helpers for the scripts in this folder. Source it; do not run it.
# Everything built or installed goes to ignored folders: bin/ and .cache/.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache"
TOOLS_BIN="$CACHE/bin"
PROVIDER_DIR="$CACHE/provider"            # holds terraform-provider-e2b for dev_overrides
PROVIDER_BIN="$PROVIDER_DIR/terraform-provider-e2b"
TOFU="$ROOT/bin/tofu"

# Pinned tool versions (see ../shared/docs/toolchain.md for why these).
TFPLUGINDOCS_VERSION=v0.25.0
GOLANGCI_LINT_VERSION=v2.15.0
GORELEASER_VERSION=v2.16.0

# Never read the user's CLI config (a missing one breaks OpenTofu's version output,
# and dev_overrides or plugin caches in it would change what is tested).
export TF_CLI_CONFIG_FILE=/dev/null
export CHECKPOINT_DISABLE=1
export PATH="$TOOLS_BIN:$PATH"

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# install_tool NAME MODULE VERSION: go install into .cache/bin unless that version is there.
install_tool() {
  local name=$1 module=$2 version=$3 stamp="$TOOLS_BIN/.$1.version"
  if [ -x "$TOOLS_BIN/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
    return 0
  fi
  say "installing $name $version (one time; goreleaser takes about 4 minutes)"
  mkdir -p "$TOOLS_BIN"
  GOBIN="$TOOLS_BIN" GOFLAGS=-buildvcs=false go install "$module@$version"
  echo "$version" >"$stamp"
}

install_tfplugindocs() { install_tool tfplugindocs github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs "$TFPLUGINDOCS_VERSION"; }
install_golangci_lint() { install_tool golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION"; }
install_goreleaser() { install_tool goreleaser github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION"; }

# build_tofu: build bin/tofu from the tools module when missing or when the
# module files changed since the last build (a stamp holds their hash).
build_tofu() {
  local stamp="$ROOT/bin/.tofu.stamp" want
  want="$(cat "$ROOT/tools/go.mod" "$ROOT/tools/go.sum" | sha256sum | cut -c1-64) $(go env GOVERSION)"
  if [ -x "$TOFU" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  say "building OpenTofu into bin/tofu (cold: about 6 minutes on 2 cores; cached afterwards)"
  mkdir -p "$ROOT/bin"
  go build -C "$ROOT/tools" -trimpath \
    -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
    -o "$TOFU.tmp" github.com/opentofu/opentofu/cmd/tofu
  mv "$TOFU.tmp" "$TOFU"
  echo "$want" >"$stamp"
}

# build_provider: the provider binary used by dev_overrides, docs and examples.
build_provider() {
  mkdir -p "$PROVIDER_DIR"
  go build -C "$ROOT" -trimpath -ldflags "-X main.version=dev" -o "$PROVIDER_BIN" .
}

# write_dev_config FILE: an OpenTofu/Terraform CLI config whose dev_overrides
# point every address the provider may be known by at the fresh build.
write_dev_config() {
  cat >"$1" <<CFG
provider_installation {
  dev_overrides {
    "registry.terraform.io/e2b-terraform/e2b" = "$PROVIDER_DIR"
    "registry.opentofu.org/e2b-terraform/e2b" = "$PROVIDER_DIR"
    "registry.opentofu.org/hashicorp/e2b"     = "$PROVIDER_DIR"
    "registry.terraform.io/hashicorp/e2b"     = "$PROVIDER_DIR"
  }
  direct {}
}
CFG
}

# spec_env: point tests at ../shared/e2b-spec by absolute path when it is there.
spec_env() {
  if [ -z "${E2B_SPEC_DIR:-}" ] && [ -d "$ROOT/../shared/e2b-spec" ]; then
    E2B_SPEC_DIR="$(cd "$ROOT/../shared/e2b-spec" && pwd)"
    export E2B_SPEC_DIR
  fi
}
