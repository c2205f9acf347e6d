import { pairedRatio } from './paired-ratio.js';

describe('pairedRatio', () => {
  const rate = (requestsPerSecond: number) => requestsPerSecond;

  it('takes the median of the per-round ratios, not the ratio of the medians', () => {
    // The machine slows down in round 2 for both rows: round by round the row does half the
    // reference's work, while the medians taken apart (100 against 120) would say 0.83.
    const row = [50, 100, 150];
    const reference = [100, 200, 120];
    expect(pairedRatio(row, reference, rate)).toBe(0.5);
  });

  it('averages the two middle ratios of an even number of rounds', () => {
    expect(pairedRatio([1, 2, 3, 8], [1, 1, 1, 1], rate)).toBe(2.5);
  });

  it('is undefined when the rounds cannot be paired', () => {
    expect(pairedRatio([], [], rate)).toBeUndefined();
    expect(pairedRatio([1, 2], [1], rate)).toBeUndefined();
  });
});
