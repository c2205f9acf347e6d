import { MAX_CONSUME_BATCH, type ConsumeResult, type Consumption } from 'process-notifications-contract';
import { ProblemError } from './problem.error.js';
import { nextTurn } from './next-turn.js';

interface Waiting {
  readonly commandId: string;
  resolve(value: Consumption): void;
  reject(error: unknown): void;
}

/**
 * Coalesces one loop's consumes issued close together into batch requests (issue 37): the first
 * waits one turn of the event loop for others to join, and while a batch is on its way the next
 * ones gather for the one after it, at most {@link MAX_CONSUME_BATCH} to a request. Each caller
 * gets its own id's answer, or its own `not_found`; a failed request fails all of its callers.
 */
export class ConsumeBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(
    private readonly send: (commandIds: string[]) => Promise<readonly ConsumeResult[]>,
    // Told when the last request ended with nothing waiting, so its owner may forget it.
    private readonly onIdle: () => void = () => undefined,
  ) {}

  /** Consumes one command id as part of the next batch. */
  consume(commandId: string): Promise<Consumption> {
    return new Promise<Consumption>((resolve, reject) => {
      this.waiting.push({ commandId, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    nextTurn(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, MAX_CONSUME_BATCH);
    this.inFlight = true;
    try {
      const results = await this.send(batch.map((entry) => entry.commandId));
      batch.forEach((entry, i) => {
        const result = results[i];
        if (result && 'consumed' in result) entry.resolve({ consumed: result.consumed, sequence: result.sequence });
        else entry.reject(notFound(entry.commandId));
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.inFlight = false;
      // What gathered meanwhile goes at once: it has waited for a whole request already.
      if (this.waiting.length > 0) void this.flush();
      else if (!this.scheduled) this.onIdle();
    }
  }
}

// What the single consume answers for an id the loop never had, as the server words it.
function notFound(commandId: string): ProblemError {
  return new ProblemError({
    type: 'about:blank',
    title: 'Not Found',
    status: 404,
    detail: `no notification ${commandId} was journaled for this loop`,
    code: 'not_found',
  });
}
