import { MAX_BODY_BYTES, MAX_DELIVERY_BATCH } from 'process-notifications-contract';
import { BadAnswerError } from './bad-answer.error.js';
import type { HttpAnswer } from './http-transport.js';
import { nextTurn } from './next-turn.js';

/** An answer and its whole body, as one attempt of a call gets it. */
export interface Exchanged {
  readonly answer: HttpAnswer;
  readonly text: string;
}

interface Waiting {
  /** The notification, serialized once by its call. */
  readonly body: string;
  /** Its `command_id`, which its result's delivery must name. */
  readonly commandId: string;
  resolve(value: Exchanged): void;
  reject(error: unknown): void;
}

/** How a batcher reaches the server: one notification alone, or several in one batch request. */
export interface DeliveryRoutes {
  /** `POST .../process-completions` with this body. */
  one(body: string): Promise<Exchanged>;
  /** `POST .../process-completions/batch` with this body. */
  batch(body: string): Promise<Exchanged>;
  /** The batch route answered that it does not exist: its caller sends every delivery alone from now on. */
  unsupported(): void;
  /** False once any batcher of the caller found the batch route missing. */
  batchSupported(): boolean;
}

// The batch body's frame around the notifications, in bytes: `{"notifications":[` and `]}`.
const FRAME_BYTES = 20;

/**
 * Statuses of a whole batch that one notification of it may have caused (its shape, its size:
 * JSON nested past the server's depth, a body over a smaller server's limit): each notification
 * is sent again alone, so that only its own caller hears of it.
 */
const ONE_MAY_HAVE_CAUSED = new Set([400, 413, 415]);

/**
 * Coalesces one session's delivery attempts into batch requests (`POST
 * .../process-completions/batch`), at most {@link MAX_DELIVERY_BATCH} to a request and within
 * {@link MAX_BODY_BYTES}, as the consumes of a loop are coalesced: the first waits one turn of the
 * event loop for others to join, and while a request is on its way the next ones gather for the
 * one after it (a full batch goes at once). An attempt that goes by itself takes the single
 * route, as it always did. Each attempt gets the answer the single route would have given it (its
 * status, headers and body, from its result in the batch), so its call's retry policy goes on as
 * before. An answer to the whole request is every attempt's own (401, a network error, a 503
 * before any notification was looked at), except one that a single notification may have caused
 * (400, 413, 415) or an answer too large to read: then each is sent again alone (an identical
 * retry writes nothing). A server without the batch route (404 or 405 to it) gets these attempts
 * and all later ones alone.
 */
export class DeliveryBatcher {
  private waiting: Waiting[] = [];
  private waitingBytes = FRAME_BYTES;
  private scheduled = false;
  private inFlight = 0;
  private routeMissing = false;

  constructor(
    private readonly routes: DeliveryRoutes,
    private readonly url: string,
    // Told when nothing is waiting or on its way any more, so its owner may forget this batcher.
    private readonly onIdle: () => void = () => undefined,
  ) {}

  /** One attempt of a delivery (its serialized notification and its command id), as part of the next batch. */
  exchange(body: string, commandId: string): Promise<Exchanged> {
    return new Promise<Exchanged>((resolve, reject) => {
      const bytes = byteLength(body) + 1;
      // A batch that this one would overfill goes first.
      if (this.waiting.length > 0 && this.waitingBytes + bytes > MAX_BODY_BYTES) this.send();
      this.waiting.push({ body, commandId, resolve, reject });
      this.waitingBytes += bytes;
      if (this.waiting.length >= MAX_DELIVERY_BATCH) this.send();
      else if (!this.scheduled && this.inFlight === 0) {
        this.scheduled = true;
        nextTurn(() => {
          this.scheduled = false;
          if (this.inFlight > 0) return;
          if (this.waiting.length > 0) this.send();
          else this.onIdle();
        });
      }
    });
  }

  // Sends what is waiting as one request (each alone once the batch route was found missing).
  private send(): void {
    const group = this.waiting;
    this.waiting = [];
    this.waitingBytes = FRAME_BYTES;
    this.inFlight++;
    const sent = group.length === 1 || this.routeMissing || !this.routes.batchSupported() ? this.eachAlone(group) : this.together(group);
    void sent
      // Nothing may leave a caller waiting: a failure of this code itself fails the group's calls
      // (rejecting a call that settled already does nothing).
      .catch((error: unknown) => group.forEach((entry) => entry.reject(error)))
      .finally(() => {
        this.inFlight--;
        if (this.inFlight > 0) return;
        // What gathered meanwhile goes at once: it has waited for a whole request already.
        if (this.waiting.length > 0) this.send();
        else if (!this.scheduled) this.onIdle();
      });
  }

  private async eachAlone(group: readonly Waiting[]): Promise<unknown> {
    return Promise.all(
      group.map((entry) =>
        this.routes.one(entry.body).then(
          (exchanged) => entry.resolve(exchanged),
          (error: unknown) => entry.reject(error),
        ),
      ),
    );
  }

  private async together(group: readonly Waiting[]): Promise<unknown> {
    let exchanged: Exchanged;
    try {
      exchanged = await this.routes.batch(`{"notifications":[${group.map((entry) => entry.body).join(',')}]}`);
    } catch (error) {
      // An answer past maxAnswerBytes: the single answers are a 32nd of it at most.
      if (error instanceof BadAnswerError && error.code === 'answer_too_large') return this.eachAlone(group);
      for (const entry of group) entry.reject(error);
      return;
    }
    const { answer, text } = exchanged;
    if ((answer.status === 404 || answer.status === 405) && !isKnownProblem(text, 'session_not_found')) {
      // No batch route here (an older server, or another implementation of the contract).
      this.routeMissing = true;
      this.routes.unsupported();
      return this.eachAlone(group);
    }
    if (ONE_MAY_HAVE_CAUSED.has(answer.status)) return this.eachAlone(group);
    if (answer.status < 200 || answer.status > 299) {
      // An answer to the whole request: every delivery's own, as the single route would have given it.
      for (const entry of group) entry.resolve(exchanged);
      return;
    }
    const results = resultsOf(text, group.length);
    if (results === undefined) {
      const error = new BadAnswerError(
        'answer_not_json',
        `the answer of POST ${this.url} is not ${group.length} delivery results: ${text.slice(0, 80)}`,
      );
      for (const entry of group) entry.reject(error);
      return;
    }
    group.forEach((entry, i) => {
      const result = results[i]!;
      try {
        // A delivery's answer names its notification (the server writes ids lower-case).
        const named = (result.body as { command_id?: unknown }).command_id;
        if (result.status >= 200 && result.status < 300 && String(named).toLowerCase() !== String(entry.commandId).toLowerCase()) {
          entry.reject(new BadAnswerError('answer_not_json', `result ${i} of POST ${this.url} is not the delivery of ${entry.commandId}`));
          return;
        }
        entry.resolve(exchangedOf(result));
      } catch (error) {
        // A body that cannot be written back as text (nested past the stack): that call's answer alone is bad.
        entry.reject(new BadAnswerError('answer_not_json', `result ${i} of POST ${this.url} cannot be read`, { cause: error }));
      }
    });
  }
}

interface Result {
  readonly status: number;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body: object;
}

// The results of a batch answer, when they are what the batch route answers: one per delivery,
// each a status, headers and a body object. Anything else (a hostile or broken server) is none.
function resultsOf(text: string, count: number): readonly Result[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const results = (parsed as { results?: unknown } | null)?.results;
  if (!Array.isArray(results) || results.length !== count) return undefined;
  const valid = results.every(
    (result: unknown) =>
      isObject(result) &&
      Number.isInteger((result as Result).status) &&
      (result as Result).status >= 100 &&
      (result as Result).status <= 599 &&
      isObject((result as Result).headers) &&
      isObject((result as Result).body),
  );
  return valid ? (results as Result[]) : undefined;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

// One delivery's result as the answer the single route would have given.
function exchangedOf(result: Result): Exchanged {
  const text = JSON.stringify(result.body);
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(result.headers)) if (typeof value === 'string') headers.set(name.toLowerCase(), value);
  const answer: HttpAnswer = {
    status: result.status,
    header: (name) => headers.get(name.toLowerCase()) ?? null,
    text: () => Promise.resolve(text),
  };
  return { answer, text };
}

// Whether `text` is a problem document with this `code` (the server's own 404 for a session).
function isKnownProblem(text: string, code: string): boolean {
  try {
    return (JSON.parse(text) as { code?: unknown } | null)?.code === code;
  } catch {
    return false;
  }
}

// UTF-8 bytes of a string, without encoding it: ASCII (every notification's usual content) is one byte a unit.
function byteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit > 0x7f) bytes += unit > 0x7ff && (unit < 0xd800 || unit > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
