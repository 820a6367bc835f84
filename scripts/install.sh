#!/usr/bin/env bash
# The provider installed the way users install it: goreleaser makes two signed releases
# (the previous version and this tree, for this machine's platform only), and test/registry
# serves them through the provider registry protocol over HTTPS to Terraform 1.11.4,
# Terraform 1.16.3 and OpenTofu, which `init` (checking SHA256SUMS and its signature),
# apply the quickstart against the released emulator, refuse tampered releases, and
# upgrade state an older version wrote (test/registry/README.md).
#
# The previous version is the last release candidate, the commit scripts/previous-release
# names, unless the last tag is newer; a release moves one or the other forward (RELEASING.md).
# A tag is released as its version and this tree as the next patch; a candidate after the tag
# (or without any tag, as 0.0.1) as a pre-release of that patch.
# The signing keys are made for the run in a temporary GNUPGHOME, deleted at exit; only
# their public halves are copied out (to .cache/install/, for the registry).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

PREVIOUS_COMMIT="$(grep -v '^#' scripts/previous-release | head -1)"
git rev-parse -q --verify "$PREVIOUS_COMMIT^{commit}" >/dev/null ||
  die "scripts/previous-release names '$PREVIOUS_COMMIT', which is not a commit of this repository"
work="$CACHE/install"

build_tofu
build_terraform "$TERRAFORM_OLD_VERSION"
build_terraform "$TERRAFORM_VERSION"
command -v gpg >/dev/null || die "gpg is needed to sign the test releases (Debian: apt-get install gnupg)"

# Versions: the last tag and the next patch; or the candidate as the patch after the last tag
# (0.0.1 without a tag) and this tree as the one after it. (HEAD~1: on a tagged commit, the tag
# before it.)
major=0 minor=0 patch=0
if last_tag="$(git describe --tags --abbrev=0 --match 'v[0-9]*' HEAD~1 2>/dev/null)"; then
  IFS=. read -r major minor patch <<<"${last_tag#v}"
  patch="${patch%%-*}"
fi
if [ -n "$last_tag" ] && ! git merge-base --is-ancestor "$last_tag" "$PREVIOUS_COMMIT"; then
  previous_ref="$last_tag"
  previous_version="${last_tag#v}"
  current_version="$major.$minor.$((patch + 1))"
else
  previous_ref="$PREVIOUS_COMMIT"
  previous_version="$major.$minor.$((patch + 1))"
  current_version="$major.$minor.$((patch + 2))"
fi
previous_commit="$(git rev-parse --short=12 "$previous_ref^{commit}")"

rm -rf "$work"
mkdir -p "$work"
# gpg-agent's socket lives in GNUPGHOME: keep its path short.
GNUPGHOME="$(mktemp -d /tmp/e2b-release-gpg.XXXXXX)"
export GNUPGHOME
cleanup() {
  gpgconf --kill gpg-agent 2>/dev/null || true
  rm -rf "$GNUPGHOME"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# new_key NAME: an RSA signing key without passphrase; prints its fingerprint.
new_key() {
  gpg --batch --quiet --passphrase '' --quick-gen-key "$1 <release-test@e2b-terraform.invalid>" rsa3072 sign 1d \
    2>>"$work/gpg.log" || { cat "$work/gpg.log"; die "gpg could not make a key"; }
  gpg --batch --with-colons --list-keys "$1" | awk -F: '/^fpr:/ { print $10; exit }'
}
GPG_FINGERPRINT="$(new_key 'terraform-provider-e2b test release')"
export GPG_FINGERPRINT
other_fingerprint="$(new_key 'another key')"
gpg --batch --armor --export "$GPG_FINGERPRINT" >"$work/signing-key.asc"
gpg --batch --armor --export "$other_fingerprint" >"$work/other-key.asc"

# release SRC VERSION: `goreleaser release` of the git tree SRC as VERSION into
# $work/VERSION, signed, with .goreleaser.yml narrowed to this machine's platform
# (every platform is built only by the release stage's dry run).
target="$(go env GOOS)_$(go env GOARCH)"
release() {
  local src=$1 version=$2 config="$work/goreleaser-$2.yml"
  awk -v target="$target" '
    /^[^ #]/ { section = $1 }
    { print }
    section == "builds:" && /^  - id: / { print "    targets: [" target "]" }
  ' "$src/.goreleaser.yml" >"$config"
  printf 'snapshot:\n  version_template: "%s"\ndist: %s\n' "$version" "$work/$version" >>"$config"
  grep -q "targets: \[$target\]" "$config" || die "could not narrow $src/.goreleaser.yml to $target"
  (cd "$src" && tool goreleaser release --snapshot --clean \
    --skip=publish --config "$config" --parallelism 2) >"$work/goreleaser-$version.log" 2>&1 ||
    { tail -30 "$work/goreleaser-$version.log"; die "goreleaser release of $version failed (log: $work/goreleaser-$version.log)"; }
  ls "$work/$version"/*_SHA256SUMS.sig >/dev/null || die "goreleaser did not sign $version"
  # The manifest as the GitHub release carries it (release.extra_files); SHA256SUMS lists it.
  cp "$src/terraform-registry-manifest.json" "$work/$version/terraform-provider-e2b_${version}_manifest.json"
  echo "released $version from $src: $(cd "$work/$version" && ls -- *.zip *.tar.gz *SHA256SUMS* | paste -sd' ')"
}

say "goreleaser: $previous_version ($previous_ref = $previous_commit) and $current_version (this tree) for $target"
# The previous version from its own tree: a git repository of its files, as goreleaser wants.
prev_src="$work/src-$previous_version"
mkdir -p "$prev_src"
git archive "$previous_commit" | tar -x -C "$prev_src"
git -C "$prev_src" init -q
git -C "$prev_src" add -A
git -C "$prev_src" -c user.name=release-test -c user.email=release-test@invalid commit -q -m "$previous_ref"
git -C "$prev_src" remote add origin https://github.com/e2b-terraform/terraform-provider-e2b.git
release "$prev_src" "$previous_version"
release "$ROOT" "$current_version"

say "go test ./test/registry (log: .cache/install/go-test.log)"
status=0
E2B_RELEASE_DIR="$work" E2B_RELEASE_PREVIOUS="$previous_version" E2B_RELEASE_CURRENT="$current_version" \
  E2B_RELEASE_KEY="$work/signing-key.asc" E2B_RELEASE_KEY_ID="$GPG_FINGERPRINT" \
  E2B_RELEASE_OTHER_KEY="$work/other-key.asc" E2B_RELEASE_OTHER_KEY_ID="$other_fingerprint" \
  E2B_RELEASE_CLIS="$TERRAFORM_OLD:$TERRAFORM14:$TOFU" \
  go test -count=1 -timeout 20m -v ${INSTALL_TEST_FLAGS:-} ./test/registry/ >"$work/go-test.log" 2>&1 || status=$?
if [ "$status" -eq 0 ]; then
  # What each CLI said about the signature, and each test's result.
  grep -E -- ' (Terraform|OpenTofu) v[^ ]+ init:$|- Installed |^\s*--- |^(ok|PASS|FAIL)' "$work/go-test.log" |
    sed -E 's/^ *//; s/^[a-z_]+_test\.go:[0-9]+: //'
else
  cat "$work/go-test.log"
fi
exit "$status"
