# Shared helpers for the scripts in this folder. Source it; do not run it.
# Builds go to ignored folders (bin/tofu, .cache/); the pinned Go tools to Go's build cache.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache"
EMULATOR_BIN="$CACHE/bin/e2b-emulator"
PROVIDER_DIR="$CACHE/provider"            # holds terraform-provider-e2b for dev_overrides
PROVIDER_BIN="$PROVIDER_DIR/terraform-provider-e2b"
TOFU="$ROOT/bin/tofu"

# Never read the user's CLI config (a missing one breaks OpenTofu's version output,
# and dev_overrides or plugin caches in it would change what is tested).
export TF_CLI_CONFIG_FILE=/dev/null
export CHECKPOINT_DISABLE=1

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The Go tools the scripts run, each pinned as the `tool` of its own module: tools/NAME/go.mod
# (its go.sum fixes the version). tools/go.mod pins OpenTofu, which build_tofu builds.
GO_TOOLS=(gotestsum tfplugindocs golangci-lint goreleaser terrafmt)

# tool_bin NAME: the path of a pinned tool, built into Go's build cache on first use.
tool_bin() { go -C "$ROOT" tool -modfile="tools/$1/go.mod" -n "$1"; }

# tool NAME ARGS...: run a pinned tool in the current directory.
tool() {
  local bin
  bin="$(tool_bin "$1")" || die "could not build $1 from tools/$1/go.mod"
  "$bin" "${@:2}"
}

# tool_version NAME: the tool's package and the module version go.sum pins.
tool_version() { go -C "$ROOT" list -modfile="tools/$1/go.mod" -f '{{.ImportPath}} {{.Module.Version}}' tool; }

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

# Terraform CLIs built from their Go module the way OpenTofu is: bin/terraform-VERSION.
# 1.16.3 has actions, list resources and `terraform query` (1.14+); 1.11.4 is the older
# Terraform the acceptance tests and the install test run on. Each module's checksum is
# pinned here (go.sum's h1: form) so a changed upstream zip fails the build.
TERRAFORM_VERSION=1.16.3
TERRAFORM_OLD_VERSION=1.11.4
declare -A TERRAFORM_MODULE_SUMS=(
  [1.16.3]="h1:qCqsNcOJECl0qjc3GwPb3CufcOjZRmAj/5LpWyd9UmI="
  [1.11.4]="h1:n5VVSuZsOLbQc9tpqny1mnd6cttyTwvEpLPVewj9UYA="
)
TERRAFORM14="$ROOT/bin/terraform-$TERRAFORM_VERSION"
TERRAFORM_OLD="$ROOT/bin/terraform-$TERRAFORM_OLD_VERSION"
# Remote-state backends whose modules the Go module proxy does not serve (tests use local state).
TERRAFORM_CUT_BACKENDS=(azure consul cos gcs kubernetes oss pg s3 oci)

# terraform_bin VERSION: where build_terraform puts Terraform VERSION.
terraform_bin() { echo "$ROOT/bin/terraform-$1"; }

# build_terraform [VERSION]: build bin/terraform-VERSION (default $TERRAFORM_VERSION) when
# missing or when this recipe (the function, its pins) or Go changed since the last build
# (a stamp holds their hash).
build_terraform() {
  local version=${1:-$TERRAFORM_VERSION} bin stamp want info dir sum tmp src b pinned
  pinned="${TERRAFORM_MODULE_SUMS[$version]:-}"
  [ -n "$pinned" ] || die "no pinned module checksum for Terraform $version (TERRAFORM_MODULE_SUMS in scripts/lib.sh)"
  bin="$(terraform_bin "$version")"
  stamp="$ROOT/bin/.terraform-$version.stamp"
  want="$(declare -f build_terraform | cat - <(echo "$pinned ${TERRAFORM_CUT_BACKENDS[*]}") |
    sha256sum | cut -c1-64) $(go env GOVERSION)"
  if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  say "building Terraform $version into bin/terraform-$version (cold: about 7 minutes on 2 idle cores; cached afterwards)"
  # `go mod download -json` prints one JSON object with one "Key": "value" per line.
  # From / so no go.mod around is read or changed.
  info="$(cd / && go mod download -json "github.com/hashicorp/terraform@v$version")" ||
    die "could not download github.com/hashicorp/terraform@v$version: $info"
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")"
  sum="$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")"
  [ "$sum" = "$pinned" ] ||
    die "github.com/hashicorp/terraform@v$version has checksum '$sum', pinned '$pinned'"
  [ -f "$dir/go.mod" ] || die "no Terraform source in '$dir'"
  # The module cache is read-only: build a writable copy with the backends cut out.
  tmp="$(mktemp -d)"
  src="$tmp/terraform"
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  for b in "${TERRAFORM_CUT_BACKENDS[@]}"; do
    sed -i "\#internal/backend/remote-state/$b\b#d" "$src/go.mod" "$src/internal/backend/init/init.go"
  done
  sed -i '\#internal/legacy\b#d' "$src/go.mod"
  # Go 1.26 no longer knows the tlskyber setting 1.11's go.mod sets (it only turned off a
  # post-quantum key exchange that some firewalls broke on).
  sed -i '/^godebug tlskyber=/d' "$src/go.mod"
  sed -i -E '/backend(Azure|Consul|Cos|GCS|Kubernetes|OSS|Pg|S3|OCI)\.New/d' "$src/internal/backend/init/init.go"
  mkdir -p "$ROOT/bin"
  # version.dev=no makes it report "Terraform vVERSION", as a release build does.
  if ! go build -C "$src" -trimpath -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" \
    -o "$bin.tmp.$$" .; then
    rm -rf "$tmp" "$bin.tmp.$$"
    die "could not build Terraform $version"
  fi
  rm -rf "$tmp"
  mv "$bin.tmp.$$" "$bin"
  echo "$want" >"$stamp"
}

# cli_at_least CLI OPENTOFU_MIN TERRAFORM_MIN: succeeds when CLI is OpenTofu or
# Terraform at least that version (major.minor).
cli_at_least() {
  local name version major minor min
  read -r name version < <("$1" version 2>/dev/null) || return 1
  case "$name" in
  OpenTofu) min=$2 ;;
  Terraform) min=$3 ;;
  *) return 1 ;;
  esac
  IFS=. read -r major minor _ <<<"${version#v}"
  [ "$major" -gt "${min%.*}" ] || { [ "$major" -eq "${min%.*}" ] && [ "$minor" -ge "${min#*.}" ]; }
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

# start_emulator DIR [FLAG...]: build and start the emulator on a random local port
# (log in DIR/emulator.log), with any extra emulator flags, and export the E2B_*
# variables it writes to DIR/emulator.env. Callers trap EXIT to stop_emulator.
EMULATOR_PID=""
start_emulator() {
  local dir=$1
  go build -C "$ROOT" -o "$EMULATOR_BIN" ./cmd/e2b-emulator
  rm -f "$dir/emulator.env"
  "$EMULATOR_BIN" -addr 127.0.0.1:0 -env-file "$dir/emulator.env" "${@:2}" >"$dir/emulator.log" 2>&1 &
  EMULATOR_PID=$!
  for _ in $(seq 1 300); do
    [ -s "$dir/emulator.env" ] && break
    kill -0 "$EMULATOR_PID" 2>/dev/null || { cat "$dir/emulator.log"; die "the emulator exited"; }
    sleep 0.1
  done
  [ -s "$dir/emulator.env" ] || die "the emulator did not start within 30 s (log: $dir/emulator.log)"
  set -a
  # shellcheck disable=SC1091
  source "$dir/emulator.env"
  set +a
}

# stop_emulator: SIGTERM (the emulator then kills its sandbox processes), SIGKILL after 10 s.
stop_emulator() {
  if [ -n "$EMULATOR_PID" ] && kill -0 "$EMULATOR_PID" 2>/dev/null; then
    kill -TERM "$EMULATOR_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$EMULATOR_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$EMULATOR_PID" 2>/dev/null || true
    wait "$EMULATOR_PID" 2>/dev/null || true
  fi
  EMULATOR_PID=""
}
