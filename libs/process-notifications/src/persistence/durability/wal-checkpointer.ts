import type { LoggerService } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import type { StoreWal } from '../dialects/store-dialect.js';

// How often, at most, the WAL is checkpointed while commits come: a checkpoint copies the pages
// the commits since the last one changed, each once however often it was written meanwhile.
const CHECKPOINT_INTERVAL_MS = 50;

/**
 * The writer's own automatic checkpoint, kept as a bound in case the checkpoint thread cannot keep
 * up (or died): at 10,000 pages (40 MB of WAL) the writer checkpoints inline, as SQLite does by
 * default at 1,000.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 10_000;

// The checkpoint thread: its own connection to the file, a PASSIVE checkpoint per message (it
// never waits for, nor blocks, the writer or the readers). FULL: the checkpoint syncs the WAL
// before it copies and the database after, whatever the writer's connection does.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 2000');
db.pragma('synchronous = FULL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.postMessage({ closed: true });
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ result });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** What one checkpoint reported: SQLite's `busy`, `log` (frames in the WAL) and `checkpointed` (frames copied). */
export interface WalCheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/**
 * Checkpoints a SQLite file's WAL in a worker thread of its own (issue 37). SQLite's automatic
 * checkpoint runs inside the COMMIT that crosses 1,000 WAL pages, on the event loop's thread:
 * a thousand page reads and writes and two syncs (6 to 10 ms) every few commits, a tenth of a
 * busy server's time. Here the writer's connection checkpoints only past
 * {@link WRITER_AUTOCHECKPOINT_PAGES} and this thread copies what commits wrote, at most every
 * 50 ms while they come. A checkpoint moves committed pages from the WAL into the database file;
 * what a reader or a crash sees is the same whichever connection runs it.
 */
export class WalCheckpointer {
  private worker?: Worker;
  private timer?: NodeJS.Timeout;
  private readonly listeners: Array<(result: WalCheckpointResult) => void> = [];

  constructor(
    private readonly wal: StoreWal,
    private readonly logger: LoggerService,
  ) {}

  /** Starts the thread (the file exists and is in WAL mode by now). */
  start(): void {
    const { driver, database } = this.wal;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: database } });
    worker.unref();
    worker.on('message', (message: { result?: WalCheckpointResult; error?: string; closed?: true }) => {
      if (message.error !== undefined) this.logger.warn(`WAL checkpoint failed: ${message.error}`);
      else if (message.result) for (const listener of this.listeners) listener(message.result);
    });
    worker.on('error', (error) => {
      // The writer's own bound checkpoints from now on.
      this.logger.warn(`the WAL checkpoint thread stopped: ${error.message}`);
      this.worker = undefined;
    });
    this.worker = worker;
  }

  /** A commit wrote to the WAL: a checkpoint follows within {@link CHECKPOINT_INTERVAL_MS}. */
  committed(): void {
    if (this.timer || !this.worker) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.worker?.postMessage('checkpoint');
    }, CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Calls `listener` with each checkpoint's result (tests, metrics). */
  onCheckpoint(listener: (result: WalCheckpointResult) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Stops the thread once its checkpoint in progress, if any, is done and its connection closed
   * (or after 5 s). It is terminated rather than left to end by itself: whatever else runs in it
   * (a host's `--import` preloads) may keep it alive.
   */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        worker.on('message', (message: { closed?: true }) => message.closed && resolve());
        worker.once('exit', () => resolve());
        worker.postMessage('close');
      }),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000))),
    ]);
    clearTimeout(timer);
    await worker.terminate();
  }
}
