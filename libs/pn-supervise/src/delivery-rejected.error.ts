import type { ProblemError } from 'process-notifications-client';

/** The server refused a record for good (a final 4xx): the entry is kept, marked rejected. */
export class DeliveryRejectedError extends Error {
  override readonly name = 'DeliveryRejectedError';

  constructor(readonly problem: ProblemError) {
    super(problem.detail);
  }
}
