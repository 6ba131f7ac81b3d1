# Shared by the scripts: where the test environments live and how to run a command in the Python 3.14 root.
# Everything is cached outside the checkout, so a clean clone reuses what this machine already built.
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${AGENT_MEDIA_CACHE:-/var/cache/agent-media}
VENV_313=$CACHE_DIR/venv-ha-2025.4
VENV_FLOORS=$CACHE_DIR/venv-ha-2025.4-floors   # HA 2025.4.4 with the requirements at their manifest floors
SID_ROOT=$CACHE_DIR/sid-root
VENV_314=/opt/venv-ha-newest          # a path inside SID_ROOT
HA_NEWEST_RELEASE=2026.11.0           # the newest Home Assistant on PyPI, which `scripts/develop --newest` runs
VENV_DEMO_NEWEST=/opt/venv-demo-newest  # inside SID_ROOT: that release for the demo, on the root's Python 3.14
ROOT_SRC=/src                         # where the checkout is bound inside SID_ROOT
QBT_API_FLOOR_314=/opt/qbittorrent-api-floor  # inside SID_ROOT: the floor qbittorrent-api, put first on PYTHONPATH
HA_COMPONENTS="conversation http diagnostics intent"
# The newest Home Assistant also serves the tools over MCP (tests/test_mcp.py): its MCP server's requirements;
# and has AI Task (tests/test_ai_task.py), whose module imports camera's (PyTurboJPEG) whether a camera is set
# up or not.
HA_COMPONENTS_NEWEST="$HA_COMPONENTS mcp_server ai_task camera"

# pip, without the warnings this machine's pip configuration prints about absent local mirrors.
quiet_pip() { "$@" 2> >(grep -v "^WARNING: Location '.*' is ignored" >&2); }

log() { printf '\033[1m[agent-media]\033[0m %s\n' "$*" >&2; }

python_313() {
  local candidate
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}/versions/3.13.0/bin/python3.13" "$(command -v python3.13 || true)"; do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  log "no Python 3.13 found (looked in pyenv and on PATH)"; return 1
}

# Runs "$@" inside the Debian sid root with the checkout at /src (and, when ROOT_CONFIG names a folder, that
# folder at /config: the newest demo's configuration). The mounts live in a private mount namespace, so they
# vanish with the command and concurrent runs do not disturb each other.
# shellcheck disable=SC2016
IN_ROOT=(unshare --mount --propagation private -- bash -euc '
    root=$1; src=$2; shift 2
    mount --rbind /dev "$root/dev"
    mount -t proc proc "$root/proc"
    mkdir -p "$root/src"
    mount --bind "$src" "$root/src"
    if [ -n "${ROOT_CONFIG:-}" ]; then mkdir -p "$root/config"; mount --bind "$ROOT_CONFIG" "$root/config"; fi
    exec chroot "$root" /usr/bin/env -u PIP_FIND_LINKS -u ROOT_CONFIG HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
      LANG=C.UTF-8 "$@"
  ' in_root "$SID_ROOT" "$REPO_DIR")
in_root() { "${IN_ROOT[@]}" "$@"; }
