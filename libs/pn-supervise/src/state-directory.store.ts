import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
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

/** One entry as `status` shows it. */
export interface ListedEntry {
  readonly entry: StateEntry;
  readonly owner: ProcessIdentityValue;
  /** Whether its supervisor still runs. */
  readonly running: boolean;
}

/** How {@link StateDirectoryStore.forget} ended. */
export type ForgetResult = 'forgotten' | 'not_found' | 'running';

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
    create = true,
  ) {
    this.owner = owner;
    if (create) mkdirSync(directory, { recursive: true, mode: 0o700 });
  }

  /** Whether any supervisor has an entry for `commandId` here. */
  has(commandId: string): boolean {
    return this.files().some((file) => file.commandId === commandId);
  }

  /** Every entry, in the order of their names, with whether its supervisor runs. */
  list(): ListedEntry[] {
    return this.files().flatMap(({ name, owner }) => {
      const entry = this.read(name);
      return entry ? [{ entry, owner, running: this.isOwn(owner) || this.isRunning(owner) }] : [];
    });
  }

  /** Removes the entry of `commandId` if its supervisor is gone. */
  forget(commandId: string): ForgetResult {
    const files = this.files().filter((file) => file.commandId === commandId);
    if (files.length === 0) return 'not_found';
    if (files.some(({ owner }) => this.isOwn(owner) || this.isRunning(owner))) return 'running';
    for (const { name } of files) {
      try {
        unlinkSync(join(this.directory, name));
      } catch (error) {
        // Taken over since: by a supervisor that runs now.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'running';
        throw error;
      }
    }
    this.syncDirectory();
    return 'forgotten';
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
      // Undefined: taken over and removed by another supervisor since readdir.
      const entry = this.read(name);
      if (!entry) continue;
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
    return !this.isOwn(owner) && !this.isRunning(owner);
  }

  private isOwn(owner: ProcessIdentityValue): boolean {
    return owner.pid === this.owner.pid && owner.token === this.owner.token;
  }

  private files(): Array<{ name: string; commandId: string; owner: ProcessIdentityValue }> {
    if (!existsSync(this.directory)) return [];
    return readdirSync(this.directory)
      .sort()
      .flatMap((name) => {
        const match = ENTRY_NAME.exec(name);
        return match ? [{ name, commandId: match[1]!, owner: { pid: Number(match[2]), token: match[3]! } }] : [];
      });
  }

  /** The entry in file `name`, or undefined when it was renamed away since it was listed. */
  private read(name: string): StateEntry | undefined {
    try {
      return JSON.parse(readFileSync(join(this.directory, name), 'utf8')) as StateEntry;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
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
