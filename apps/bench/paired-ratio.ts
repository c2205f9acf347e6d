/**
 * The median over rounds of `value(row's round) / value(reference's round)`, pairing each round
 * of a row with the same round of the row it is compared to. The rows of one round run within a
 * minute or two; on a shared machine whose speed drifts by up to 2x from one minute to the next,
 * the ratio within a round cancels that drift, where the ratio of two separately taken medians
 * does not. Undefined unless both ran the same number of rounds, at least one.
 */
export function pairedRatio<T>(row: readonly T[], reference: readonly T[], value: (result: T) => number): number | undefined {
  if (row.length === 0 || row.length !== reference.length) return undefined;
  const ratios = row.map((result, round) => value(result) / value(reference[round]!)).sort((a, b) => a - b);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle] : (ratios[middle - 1]! + ratios[middle]!) / 2;
}
