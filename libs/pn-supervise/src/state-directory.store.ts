import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessIdentity, type ProcessIdentityValue } from './process-identity.js';
import type { StateEntry } from './state-entry.interface.js';

// <command_id>.<owner pid>.<owner start token>.json: the owner is part of the name, so taking an
// entry over is one atomic rename that only one of several racing supervisors can win.
const ENTRY_NAME = /^([0-9a-f-]{36})\.(\d+)\.(\d+)\.json$/;
const TEMP_NAME = /^([0-9a-f-]{36})\.(\d+)\.(\d+)\.json\.tmp$/;

/** What {@link StateDirectoryStore.takeOverAbandoned} found. */
export interface TakeOver {
  /** Entries of this session whose supervisor is gone, now owned by this process. */
  readonly entries: StateEntry[];
  /** Abandoned entries the server refused earlier; kept, not retried. */
  readonly rejected: number;
  /** Abandoned entries of other sessions, left for a supervisor of theirs. */
  readonly otherSessions: number;
}

/**
 * The supervisor's state directory: one JSON file per command not yet answered. Every write is
 * a temporary file, fsync, rename over the entry, fsync of the directory, so a crash leaves
 * either the old or the new entry, never a torn one. Each file is owned by one running
 * supervisor; several may share the directory.
 */
export class StateDirectoryStore {
  private readonly owner: ProcessIdentityValue;

  constructor(
    readonly directory: string,
    owner: ProcessIdentityValue = ProcessIdentity.current(),
    private readonly isRunning: (owner: ProcessIdentityValue) => boolean = ProcessIdentity.isRunning,
  ) {
    this.owner = owner;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  }

  /** Writes (or rewrites) an entry owned by this process, durably. */
  save(entry: StateEntry): void {
    const path = this.pathOf(entry.command_id, this.owner);
    const temp = `${path}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(entry, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    this.syncDirectory();
  }

  /** Forgets an entry of this process. */
  remove(entry: StateEntry): void {
    unlinkSync(this.pathOf(entry.command_id, this.owner));
    this.syncDirectory();
  }

  /**
   * Takes over the entries whose supervisor no longer runs and that belong to `sessionId` (a
   * session token opens only its own session). Leftover temporary files of dead supervisors
   * are removed.
   */
  takeOverAbandoned(sessionId: string): TakeOver {
    const taken: StateEntry[] = [];
    let rejected = 0;
    let otherSessions = 0;
    for (const name of readdirSync(this.directory).sort()) {
      const temp = TEMP_NAME.exec(name);
      if (temp && this.abandoned(temp)) {
        unlinkSync(join(this.directory, name));
        continue;
      }
      const match = ENTRY_NAME.exec(name);
      if (!match || !this.abandoned(match)) continue;
      let entry: StateEntry;
      try {
        entry = JSON.parse(readFileSync(join(this.directory, name), 'utf8')) as StateEntry;
      } catch (error) {
        // Taken over and removed by another supervisor since readdir.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (entry.rejected) {
        rejected++;
        continue;
      }
      if (entry.session_id !== sessionId) {
        otherSessions++;
        continue;
      }
      try {
        renameSync(join(this.directory, name), this.pathOf(entry.command_id, this.owner));
      } catch (error) {
        // Another supervisor won the race for it.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      taken.push(entry);
    }
    if (taken.length > 0) this.syncDirectory();
    return { entries: taken, rejected, otherSessions };
  }

  private abandoned(match: RegExpExecArray): boolean {
    const owner = { pid: Number(match[2]), token: match[3]! };
    if (owner.pid === this.owner.pid && owner.token === this.owner.token) return false;
    return !this.isRunning(owner);
  }

  private pathOf(commandId: string, owner: ProcessIdentityValue): string {
    return join(this.directory, `${commandId}.${owner.pid}.${owner.token}.json`);
  }

  private syncDirectory(): void {
    const fd = openSync(this.directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
