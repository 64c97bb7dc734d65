#!/usr/bin/env bash
# Build the peer runners (docs/peer-protocol.md) that their toolchains allow:
#   peers/bin/httprouter, peers/bin/chi   Go, offline: GOPATH mode against the
#                                          Debian packages in /usr/share/gocode
#   peers/find-my-way/node_modules         npm ci from the committed lock file
# A missing toolchain is a message naming the package, and that runner is
# skipped; the exit status is 1 only when a runner whose toolchain is there
# fails to build.  scripts/setup.sh --peers installs the toolchains first.
set -uo pipefail
cd "$(dirname "$0")"
status=0
if command -v go >/dev/null; then
  mkdir -p bin
  for r in httprouter chi; do
    if GO111MODULE=off GOFLAGS= GOPATH="$PWD/go:/usr/share/gocode" \
       GOCACHE="${GOCACHE:-$PWD/go/.cache}" go build -o "bin/$r" "routebench/$r"; then
      echo "peers: built peers/bin/$r"
    else
      echo "peers: $r did not build (needs golang-go and its -dev package:" \
           "scripts/setup.sh --peers)" >&2
      status=1
    fi
  done
else
  echo "peers: go not found: httprouter and chi are not built (Debian golang-go," \
       "golang-github-julienschmidt-httprouter-dev, golang-github-go-chi-chi-dev:" \
       "scripts/setup.sh --peers)" >&2
fi
if command -v node >/dev/null && command -v npm >/dev/null; then
  if (cd find-my-way && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "peers: installed peers/find-my-way/node_modules"
  else
    echo "peers: npm ci failed in peers/find-my-way" >&2
    status=1
  fi
else
  echo "peers: node or npm not found: find-my-way is not set up (Debian nodejs, npm:" \
       "scripts/setup.sh --peers)" >&2
fi
exit $status
