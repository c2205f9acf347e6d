#!/usr/bin/env bash
# Runs the mutation test (stryker.config.mjs) in parts, one Stryker run per group of files, so
# that a run cut short keeps the parts that finished, and prints each part's wall time. Each
# part writes reports/mutation/parts/<part>.json (and .html); scripts/mutation-score.mjs adds
# them up. Incremental: a part run again re-tests only mutants whose code or covering tests
# changed (--force re-tests everything).
#   scripts/mutate-parts.sh [part...]   (default: every part)
set -euo pipefail
# The whole script is one compound command, read before it runs: bash reads a script as it goes,
# so a run of an hour would otherwise execute whatever an edit of this file moved under it.
{
cd "$(dirname "$0")/.."

L=libs/process-notifications/src
declare -A PARTS=(
  [http]="src/http/bearer-auth.guard.ts,src/http/problem-details.filter.ts"
  [validation]="$L/validation/**/*.ts,!$L/validation/**/*.spec.ts"
  [commands]="$L/commands/**/*.handler.ts"
  [loop]="$L/loops/process-loop.ts"
  [journal]="$L/journal/**/*.ts,!$L/journal/**/*.spec.ts"
  [database]="$L/persistence/journal/journal-rows.ts,$L/persistence/durability/journal-outage.ts,$L/persistence/dialects/store-failure.ts"
  [writer]="$L/persistence/journal/journal-writer.service.ts,$L/persistence/journal/journal-write-queue.ts,$L/persistence/transaction/journal-transaction-runner.ts,$L/persistence/journal/journal-read-connection.ts,$L/persistence/journal/journal-health-probe.ts,$L/persistence/leases/journal-fencing.ts,$L/persistence/journal/journal-commit-hint.ts"
)
ORDER=(http validation commands loop journal database writer)

# The first pass of a part runs only these test files (the ones written for its code); every
# mutant that survives it is then run again with all related test files (the recheck pass), so
# a kill is never lost, only found sooner. Parts not listed run all related tests at once.
N=test/notifications
declare -A FIRST_PASS_TESTS=(
  [validation]="$L/validation/validate-input.spec.ts,$L/validation/lifecycle-timestamp.decorator.spec.ts,$L/commands/publish-process-lifecycle/process-lifecycle-record.dto.spec.ts,test/lifecycle/lifecycle-vectors.int-spec.ts"
  [commands]="$N/notification-delivery.int-spec.ts,$N/dispatch-session-moved.int-spec.ts,$N/notification-consumption.int-spec.ts,$N/append-before-dispatch.int-spec.ts,$N/notification-validation.int-spec.ts,test/lifecycle/lifecycle-publishing.int-spec.ts,test/durability/consume-and-restore.int-spec.ts,test/durability/sqlite-write-failure.int-spec.ts"
  [loop]="$L/loops/process-loop.spec.ts,$N/notification-delivery.int-spec.ts,$N/notification-consumption.int-spec.ts,test/sessions/sessions-and-loops.int-spec.ts,test/durability/consume-and-restore.int-spec.ts,test/e2e/metrics.e2e-spec.ts"
  [journal]="$L/journal/journal-feed.service.spec.ts,test/cluster/journal-feed.int-spec.ts,$L/journal/journal-retention.service.spec.ts,test/journal/journal-record-payloads.int-spec.ts,test/journal/retention.int-spec.ts,$N/notification-consumption.int-spec.ts,$N/notification-delivery.int-spec.ts,test/lifecycle/lifecycle-publishing.int-spec.ts,test/durability/consume-and-restore.int-spec.ts,$L/persistence/journal/journal-writer.service.spec.ts"
  [database]="$L/persistence/journal/journal-writer.service.spec.ts,test/durability/sqlite-write-failure.int-spec.ts,test/durability/consume-and-restore.int-spec.ts,test/journal/retention.int-spec.ts,$N/notification-consumption.int-spec.ts"
  [writer]="$L/persistence/journal/journal-writer.service.spec.ts,test/durability/sqlite-write-failure.int-spec.ts,test/durability/consume-and-restore.int-spec.ts,test/journal/retention.int-spec.ts,$N/notification-delivery.int-spec.ts"
)

# AFTER=1: after new tests were written, a part's undetected mutants (first pass and recheck)
# are run with these test files; the score counts what they detect (<part>.after.json).
declare -A AFTER_TESTS=(
  [http]="test/e2e/problem-details.e2e-spec.ts,src/http/problem-details.filter.spec.ts,src/http/bearer-auth.guard.spec.ts"
  [loop]="test/sessions/stop-journal-failure.int-spec.ts"
  [database]="$L/persistence/durability/journal-outage.spec.ts,$L/persistence/dialects/store-failure.spec.ts"
  [journal]="$L/journal/journal-retention.service.spec.ts,test/journal/journal-record-payloads.int-spec.ts,$L/journal/journal-feed.service.spec.ts"
  [commands]="$N/dispatch-journal-failure.int-spec.ts,test/lifecycle/lifecycle-not-an-object.int-spec.ts,$N/dispatch-session-moved.int-spec.ts,$N/notification-consumption.int-spec.ts"
  [validation]="$L/validation/validation-messages.spec.ts"
  [writer]="$L/persistence/journal/journal-write-queue.spec.ts,$L/persistence/journal/journal-read-connection.spec.ts,$L/persistence/transaction/journal-transaction-runner.spec.ts,$L/persistence/journal/journal-health-probe.spec.ts,$L/persistence/leases/journal-fencing.spec.ts,$L/persistence/journal/journal-commit-hint.spec.ts,test/journal/journal-writer-postgres.int-spec.ts"
)

extra=()
parts=()
for arg in "$@"; do
  if [[ $arg == --* ]]; then extra+=("$arg"); else parts+=("$arg"); fi
done
[[ ${#parts[@]} -gt 0 ]] || parts=("${ORDER[@]}")

mkdir -p reports/mutation/parts
for part in "${parts[@]}"; do
  files=${PARTS[$part]:?unknown part $part}
  start=$(date +%s)
  if [[ ${AFTER:-} == 1 ]]; then
    ranges=$(node scripts/mutation-score.mjs --ranges "$part")
    [[ -n $ranges && -n ${AFTER_TESTS[$part]:-} ]] || continue
    # AFTER_RUN=2, 3...: another run after more tests were written, kept beside the first.
    MUTATE_TESTS=${AFTER_TESTS[$part]} MUTATE_PART=$part.after${AFTER_RUN:-} nice -n "${NICE:-19}" npx stryker run stryker.part.config.mjs --concurrency "${CONCURRENCY:-2}" \
      --mutate "$ranges" "${extra[@]}" >"reports/mutation/parts/$part.after${AFTER_RUN:-}.log" 2>&1 || echo "part $part after: stryker failed"
    echo "part $part (after${AFTER_RUN:-}): $(($(date +%s) - start)) s" | tee -a reports/mutation/parts/times.txt
    continue
  fi
  tests=${FIRST_PASS_TESTS[$part]:-}
  # RECHECK_ONLY=1: only the recheck, over the first pass already in reports/.
  [[ ${RECHECK_ONLY:-} == 1 ]] || MUTATE_TESTS=$tests MUTATE_PART=$part nice -n "${NICE:-19}" npx stryker run stryker.part.config.mjs --concurrency "${CONCURRENCY:-2}" --mutate "$files" "${extra[@]}" \
    >"reports/mutation/parts/$part.log" 2>&1 || echo "part $part: stryker failed (see reports/mutation/parts/$part.log)"
  end=$(date +%s)
  [[ ${RECHECK_ONLY:-} == 1 ]] || echo "part $part: $((end - start)) s" | tee -a reports/mutation/parts/times.txt
  # Recheck: what the first pass left undetected, with every related test file.
  # NO_RECHECK=1 leaves it out (the first pass then gives a lower bound of the score).
  if [[ ${NO_RECHECK:-} != 1 && -n ${FIRST_PASS_TESTS[$part]:-} && -f reports/mutation/parts/$part.json ]]; then
    ranges=$(node scripts/mutation-score.mjs --ranges "$part")
    [[ -n $ranges ]] || continue
    start=$(date +%s)
    MUTATE_PART=$part.recheck nice -n "${NICE:-19}" npx stryker run stryker.part.config.mjs --concurrency "${CONCURRENCY:-2}" --mutate "$ranges" "${extra[@]}" \
      >"reports/mutation/parts/$part.recheck.log" 2>&1 || echo "part $part recheck: stryker failed (see reports/mutation/parts/$part.recheck.log)"
    end=$(date +%s)
    echo "part $part recheck: $((end - start)) s" | tee -a reports/mutation/parts/times.txt
  fi
done
exit
}
