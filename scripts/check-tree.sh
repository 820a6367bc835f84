#!/usr/bin/env bash
# Fails when git tracks a build output: an executable binary (ELF, Mach-O, PE, or any
# file with the executable bit that is not a script), or any file over 1 MiB. A file that
# must be large or binary is a fixture: it lives under a testdata/ folder and its name
# contains "fixture", which this check lets through.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' entry; do
  mode=${entry%% *}
  path=${entry#*$'\t'}
  [ -f "$path" ] || continue # deleted in the working tree
  case "$path" in */testdata/*fixture* | testdata/*fixture*) continue ;; esac
  magic="$(head -c 4 "$path" | od -An -tx1 | tr -d ' \n')"
  case "$magic" in
  7f454c46 | cffaedfe | cefaedfe | feedfacf | feedface | 4d5a*)
    echo "tracked binary executable: $path (build outputs belong in bin/, dist/ or .cache/)"
    bad=1
    continue
    ;;
  esac
  if [ "$mode" = 100755 ] && [ "$(head -c 2 "$path")" != '#!' ]; then
    echo "tracked executable that is not a script: $path"
    bad=1
  fi
  size=$(stat -c %s "$path")
  if [ "$size" -gt "$limit" ]; then
    echo "tracked file over 1 MiB: $path ($size bytes); name a deliberate one testdata/*fixture*"
    bad=1
  fi
done < <(git ls-files -s -z | tr '\0' '\n' | sed 's/^\([0-9]*\) [0-9a-f]* [0-9]\t/\1 \t/' | tr '\n' '\0')
exit "$bad"
