#!/usr/bin/env bash
# Install the Debian packages routebench needs, only those that are missing.
# Runs apt-get as root (directly, or through sudo when not root).
#   scripts/setup.sh           what the default job needs
#   scripts/setup.sh --http    also libmicrohttpd-dev and wrk, for `routebench http`
#                              (opt-in: the default job never needs them)
#   scripts/setup.sh --results also jq, which scripts/results.sh renders the
#                              targets table with (opt-in as well)
#   scripts/setup.sh --peers   also Go (golang-go and the Debian packages of httprouter,
#                              chi, gin, echo and gorilla/mux), Rust (cargo, unless a
#                              cargo is already on PATH) and Node (nodejs, npm unless
#                              node already brings it), then builds the peer runners
#                              (peers/build.sh); opt-in as well
#   scripts/setup.sh --browser also Debian's headless Chromium, which
#                              tests/browser_check.sh opens report.html and the
#                              SVG charts in (opt-in: without it that test skips)
set -euo pipefail
packages=(cmake ninja-build pkg-config gcc g++ libxxhash-dev libcriterion-dev libcjson-dev
          libyaml-dev libexpat1-dev libbenchmark-dev libr3-dev clang clang-format valgrind strace
          libxml2-utils)
peers=0
for arg in "$@"; do
  case "$arg" in
    --http) packages+=(libmicrohttpd-dev wrk) ;;
    --results) packages+=(jq) ;;
    --browser) packages+=(chromium-headless-shell fonts-dejavu-core) ;;
    --peers)
      peers=1
      packages+=(golang-go golang-github-julienschmidt-httprouter-dev golang-github-go-chi-chi-dev
                 golang-github-gin-gonic-gin-dev golang-github-labstack-echo-dev
                 golang-github-gorilla-mux-dev)
      command -v cargo >/dev/null || packages+=(cargo)
      command -v node >/dev/null || packages+=(nodejs)
      command -v npm >/dev/null || packages+=(npm)
      ;;
    *) echo "setup: unknown option $arg (known: --browser, --http, --peers, --results)" >&2; exit 2 ;;
  esac
done
build_peers() {
  if [ "$peers" -eq 1 ]; then bash "$(dirname "$0")/../peers/build.sh"; fi
}
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  build_peers
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
build_peers
