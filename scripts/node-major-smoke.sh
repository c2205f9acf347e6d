#!/usr/bin/env bash
# The smoke test on the supported Node majors the full suite does not run on
# (docs/development.md#node-versions), run by .ci/run before the full suite: for each major given
# (e.g. `scripts/node-major-smoke.sh 22 26`), that Node from the npm registry by
# scripts/with-node.sh (with the headers it picks), better-sqlite3 compiled for it offline with
# npm's own node-gyp, `npm run build`, and a few specs that start the real server (SQLite and
# PostgreSQL), its HTTP API and the supervisor. The checkout's own better-sqlite3 binary is put
# back afterwards, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

SPECS=(
  test/e2e/happy-path.e2e-spec.ts
  test/e2e/postgres.e2e-spec.ts
  test/durability/server-process.int-spec.ts
  test/supervisor/supervisor.e2e-spec.ts
)
gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"

# One major, run by scripts/with-node.sh: its node first on PATH, npm_config_nodedir its headers.
if [ "${1:-}" = --under-with-node ]; then
  log=$2
  echo "Node $(node --version): better-sqlite3, npm run build, ${#SPECS[@]} specs"
  if ! (cd node_modules/better-sqlite3 && node "$gyp" rebuild --release --nodedir="$npm_config_nodedir" >"$log" 2>&1); then
    cat "$log"
    exit 1
  fi
  npm run build --silent
  # Jest's default reporter only: the closing line `tests: N passed, N failed` is the suite's.
  # `--reporters` takes a list, so it goes after the spec paths (before them it would swallow them).
  exec node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js "${SPECS[@]}" --reporters=default
fi

addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
work=$(mktemp -d)
cp "$addon" "$work/own.node"
restore() {
  cp "$work/own.node" "$addon"
  rm -rf "$work"
}
trap restore EXIT
for major in "$@"; do
  scripts/with-node.sh "$major" scripts/node-major-smoke.sh --under-with-node "$work/gyp.log"
done
