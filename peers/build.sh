#!/usr/bin/env bash
# Build the peer runners (docs/peer-protocol.md) that their toolchains allow:
#   peers/bin/{httprouter,chi,gin,echo,gorilla-mux,nop-go}
#                               Go, offline: GOPATH mode against the Debian
#                               packages in /usr/share/gocode
#   peers/bin/matchit, nop-rust Rust (cargo): matchit =0.9.1 from crates.io, or,
#                               when the registry cannot be reached, from the
#                               vendored copy in ../shared/vendor (next to the
#                               checkout; ROUTEBENCH_VENDOR names another)
#   peers/find-my-way/node_modules, peers/js/node_modules
#                               npm ci from the committed lock files
# A missing toolchain is a message naming the package, and those runners
# are skipped; the exit status is 1 only when a runner whose toolchain is
# there fails to build.  scripts/setup.sh --peers installs the toolchains.
set -uo pipefail
cd "$(dirname "$0")"
status=0
mkdir -p bin
if command -v go >/dev/null; then
  # runner name and its package (a Go package name has no '-')
  for r in httprouter:httprouter chi:chi gin:gin echo:echo gorilla-mux:gorillamux nop-go:nop; do
    name=${r%%:*} pkg=${r#*:}
    if GO111MODULE=off GOFLAGS= GOPATH="$PWD/go:/usr/share/gocode" \
       GOCACHE="${GOCACHE:-$PWD/go/.cache}" go build -o "bin/$name" "routebench/$pkg"; then
      echo "peers: built peers/bin/$name"
    else
      echo "peers: $name did not build (needs golang-go and its -dev package:" \
           "scripts/setup.sh --peers)" >&2
      status=1
    fi
  done
else
  echo "peers: go not found: httprouter, chi, gin, echo and gorilla-mux are not built" \
       "(Debian golang-go and their golang-github-*-dev packages: scripts/setup.sh --peers)" >&2
fi

# The vendored crates: ROUTEBENCH_VENDOR, else shared/vendor beside the
# checkout, else beside the main checkout of this repository (a worktree).
vendor_dir() {
  local repo common
  repo=$(cd .. && pwd)
  for d in "${ROUTEBENCH_VENDOR:-}" "$repo/../shared/vendor"; do
    if [ -n "$d" ] && [ -d "$d/matchit-0.9.1" ]; then (cd "$d" && pwd); return 0; fi
  done
  common=$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || return 1
  d="$(dirname "$common")/../shared/vendor"
  if [ -d "$d/matchit-0.9.1" ]; then (cd "$d" && pwd); return 0; fi
  return 1
}

# matchit 0.9.1 declares rust-version 1.66 (Debian 12's rustc is 1.63)
rust_ok() {
  local v
  v=$(rustc --version 2>/dev/null | awk '{print $2}') || return 1
  [ "$(printf '%s\n' 1.66.0 "$v" | sort -V | head -1)" = 1.66.0 ]
}

if command -v cargo >/dev/null && ! rust_ok; then
  echo "peers: rustc $(rustc --version 2>/dev/null | awk '{print $2}') is older than 1.66," \
       "which matchit 0.9.1 needs: matchit is not built (a newer Rust: rustup.rs)" >&2
elif command -v cargo >/dev/null; then
  cargo_args=(build --release --quiet --manifest-path matchit/Cargo.toml)
  # the registry when it answers; the vendored copy when it does not
  if ! CARGO_NET_RETRY=0 CARGO_HTTP_TIMEOUT=10 timeout 60 \
       cargo fetch --quiet --manifest-path matchit/Cargo.toml 2>/dev/null; then
    if vendor=$(vendor_dir); then
      echo "peers: crates.io unreachable: matchit from $vendor/matchit-0.9.1"
      cargo_args+=(--offline --config "patch.crates-io.matchit.path=\"$vendor/matchit-0.9.1\"")
    else
      echo "peers: crates.io unreachable and no vendored matchit (../shared/vendor/matchit-0.9.1" \
           "or ROUTEBENCH_VENDOR): matchit is not built" >&2
      cargo_args=()
    fi
  fi
  if [ ${#cargo_args[@]} -gt 0 ]; then
    if cargo "${cargo_args[@]}" && cp matchit/target/release/matchit bin/matchit &&
       cp matchit/target/release/nop bin/nop-rust; then
      echo "peers: built peers/bin/matchit and peers/bin/nop-rust"
    else
      echo "peers: matchit did not build (cargo build in peers/matchit)" >&2
      status=1
    fi
  fi
else
  echo "peers: cargo not found: matchit is not built (Debian cargo: scripts/setup.sh --peers)" >&2
fi

if command -v node >/dev/null && command -v npm >/dev/null; then
  for d in find-my-way js; do
    if (cd "$d" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
      echo "peers: installed peers/$d/node_modules"
    else
      echo "peers: npm ci failed in peers/$d" >&2
      status=1
    fi
  done
else
  echo "peers: node or npm not found: find-my-way, hono, rou3 and memoirist are not set up" \
       "(Debian nodejs, npm: scripts/setup.sh --peers)" >&2
fi
exit $status
