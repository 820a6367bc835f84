#!/bin/bash
# sudo as the E2B emulator provides it (see internal/emulator/sandboxos/sudo_shim.go).
# E2B's base template lets its default user run any command with sudo,
# without a password. The emulator runs every command as its own user, so
# this stand-in cannot switch users: it sets up the environment sudo would
# (reset unless -E, then HOME, USER, LOGNAME, SHELL, MAIL, PATH and SUDO_*
# for the target user, VAR=value words) and runs the command.

usage() {
  echo "usage: sudo [-EHiknSsv] [-u user] [-g group] [--preserve-env[=list]] [VAR=value] [command [arg ...]]" >&2
  exit "${1:-1}"
}

secure_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
preserve=0 target=root login=0 shell=0 set_home=0
keep=()
while (($#)); do
  case $1 in
  --) shift; break ;;
  -E | --preserve-env) preserve=1 ;;
  --preserve-env=*) IFS=, read -ra more <<<"${1#--preserve-env=}"; keep+=("${more[@]}") ;;
  -u | --user | -g | --group | -C | --close-from | -D | --chdir | --host | -p | --prompt | -r | --role | -t | --type | -T | --command-timeout | -U | --other-user)
    (($# >= 2)) || usage
    case $1 in -u | --user) target=$2 ;; esac
    shift ;;
  --user=*) target=${1#--user=} ;;
  --group=* | --close-from=* | --chdir=* | --host=* | --prompt=* | --role=* | --type=* | --command-timeout=* | --other-user=*) ;;
  -i | --login) login=1 ;;
  -s | --shell) shell=1 ;;
  -H | --set-home) set_home=1 ;;
  -n | --non-interactive | -S | --stdin | -k | --reset-timestamp | -b | --background | -P | --preserve-groups | -A | --askpass | -B | --bell | -N | --no-update) ;;
  -v | --validate | -K | --remove-timestamp) (($# == 1)) && exit 0 ;;
  -l | --list)
    echo "User ${USER:-user} may run the following commands on ${HOSTNAME:-localhost}:"
    echo "    (ALL : ALL) NOPASSWD: ALL"
    exit 0 ;;
  -V | --version) echo "Sudo version 1.9 (the E2B emulator's stand-in, which does not switch users)"; exit 0 ;;
  -h | --help) usage 0 ;;
  -[ugCDprtTU]?*) # a value attached to its option: -uroot
    set -- "${1:0:2}" "${1:2}" "${@:2}"
    continue ;;
  -[!-]?*) # grouped flags: -nE is -n -E
    set -- "${1:0:2}" "-${1:2}" "${@:2}"
    continue ;;
  -*) echo "sudo: unrecognized option '$1'" >&2; usage ;;
  *) break ;;
  esac
  shift
done

# VAR=value words before the command set variables, as sudo lets this user do.
assign=()
while (($#)) && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
  assign+=("$1")
  shift
done
(($# || login || shell)) || usage

# passwd_entry NAME: "name:home:shell:uid:gid" from the sandbox's /etc/passwd
# (NAME may be "#uid", as sudo takes it).
passwd_entry() {
  local name pw uid gid gecos dir sh
  while IFS=: read -r name pw uid gid gecos dir sh || [ -n "$name" ]; do
    if [ "$name" = "$1" ] || [ "#$uid" = "$1" ]; then
      echo "$name:$dir:$sh:$uid:$gid"
      return 0
    fi
  done </etc/passwd
  return 1
}
if ! entry=$(passwd_entry "$target"); then
  echo "sudo: unknown user $target" >&2
  exit 1
fi
IFS=: read -r target home target_shell _ _ <<<"$entry"
home=${home:-/} target_shell=${target_shell:-/bin/sh}
caller=${USER:-$(id -un 2>/dev/null)}
caller_uid=$(id -u) caller_gid=$(id -g)
if entry=$(passwd_entry "$caller"); then IFS=: read -r _ _ _ caller_uid caller_gid <<<"$entry"; fi

# -i runs the target's login shell in its home, -s a shell; either way the
# command words become one escaped string for the shell's -c.
if ((login || shell)); then
  run_shell=$target_shell
  ((login)) || run_shell=${SHELL:-$target_shell}
  words=()
  if (($#)); then
    printf -v line '%q ' "$@"
    words=(-c "${line% }")
  fi
  if ((login)); then
    cd "$home" 2>/dev/null || true
    set -- "$run_shell" -l "${words[@]}"
  else
    set -- "$run_shell" "${words[@]}"
  fi
fi
if ! resolved=$(PATH=$secure_path command -v -- "$1"); then
  echo "sudo: $1: command not found" >&2
  exit 1
fi

env_args=()
if ((!preserve)); then
  env_args=(-i)
  # What sudo's env_reset keeps from the caller, the --preserve-env names,
  # and the emulator's egress proxy (on E2B egress is the network's, which
  # sudo does not change).
  while IFS= read -r name; do
    case $name in
    TERM | COLORTERM | COLORS | LS_COLORS | DISPLAY | XAUTHORITY | LANG | LANGUAGE | LC_* | TZ | HOSTNAME | \
      HTTP_PROXY | HTTPS_PROXY | NO_PROXY | http_proxy | https_proxy | no_proxy) env_args+=("$name=${!name}") ;;
    esac
  done < <(compgen -e)
  for name in "${keep[@]}"; do
    [ -n "${!name+set}" ] && env_args+=("$name=${!name}")
  done
  env_args+=("HOME=$home" "SHELL=$target_shell" "MAIL=/var/mail/$target")
elif ((set_home || login)); then
  env_args+=("HOME=$home")
fi
sudo_command=$resolved
(($# > 1)) && sudo_command+=" ${*:2}"
env_args+=("PATH=$secure_path" "USER=$target" "LOGNAME=$target"
  "SUDO_USER=$caller" "SUDO_UID=$caller_uid" "SUDO_GID=$caller_gid" "SUDO_COMMAND=$sudo_command"
  "${assign[@]}")
exec env "${env_args[@]}" "$resolved" "${@:2}"
