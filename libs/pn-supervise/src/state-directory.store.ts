import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { HostIdentity, type HostIdentityValue } from './host-identity.js';
import { ProcessIdentity, type ProcessIdentityValue } from './process-identity.js';
import type { StateEntry } from './state-entry.interface.js';
import { StateEntryValidator } from './state-entry.validator.js';
import { UnsafeStateDirectoryError } from './unsafe-state-directory.error.js';

// <command_id>.<owner>.json, the owner being <pid>.<start token>, then (since issue 36)
// .<PID namespace>.<boot id>.<machine id or ->: the owner is part of the name, so taking an
// entry over is one atomic rename that only one of several racing supervisors can win, and an
// owner elsewhere is recognised without reading its file. Names without the three (older
// supervisors, or no /proc) are owners here.
const OWNER = String.raw`(\d+)\.(\d+)(?:\.(\d+)\.([0-9a-f]{32})\.([0-9a-f]{32}|-))?`;
const ENTRY_NAME = new RegExp(String.raw`^([0-9a-f-]{36})\.${OWNER}\.json$`);
const TEMP_NAME = new RegExp(String.raw`^([0-9a-f-]{36})\.${OWNER}\.json\.tmp$`);
// An entry is a few hundred bytes; anything much larger is not one, and is not read whole.
const MAX_ENTRY_BYTES = 64 * 1024;

/** The supervisor that owns an entry: its process, and where that process runs. */
export interface StateOwner extends ProcessIdentityValue {
  /** Absent for an entry of an older supervisor, or where /proc does not say. */
  readonly host?: HostIdentityValue;
}

/** Whether an entry's supervisor still runs, as `status` prints it. */
export type SupervisorState = 'running' | 'gone' | 'other-pid-namespace' | 'other-machine';

/** One entry as `status` shows it. */
export interface ListedEntry {
  readonly entry: StateEntry;
  readonly owner: StateOwner;
  readonly supervisor: SupervisorState;
}

/** A file named like an entry that is not one this supervisor reads: left as it is, reported. */
export interface SkippedEntry {
  readonly name: string;
  readonly problem: string;
}

/** What {@link StateDirectoryStore.list} found. */
export interface Listing {
  readonly entries: ListedEntry[];
  readonly skipped: SkippedEntry[];
}

/** What {@link StateDirectoryStore.takeOverAbandoned} found. */
export interface TakeOver {
  /** Entries of this session whose supervisor is gone, now owned by this process. */
  readonly entries: StateEntry[];
  /**
   * Abandoned entries the server refused earlier that no run had announced yet; kept, not
   * retried, and now marked announced, so the next run is silent about them.
   */
  readonly rejected: number;
  /** Abandoned entries of other sessions, left for a supervisor of theirs. */
  readonly otherSessions: number;
  /** Entries of supervisors in another PID namespace or on another machine: never taken over. */
  readonly elsewhere: number;
  /** Abandoned files named like entries that cannot be read as one. */
  readonly skipped: SkippedEntry[];
}

/** How {@link StateDirectoryStore.forget} ended. */
export type ForgetResult = 'forgotten' | 'not_found' | 'running' | 'elsewhere';

/** An owner seen from this process. */
type Whereabouts = 'own' | 'running' | 'gone' | 'rebooted' | 'other_pid_namespace' | 'other_machine';

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * The supervisor's state directory: one JSON file per command not yet answered. Every write is
 * a new temporary file (never one that exists, never through a link), fsync, rename over the
 * entry, fsync of the directory, so a crash leaves either the old or the new entry, never a
 * torn one. Each file is owned by one running supervisor; several may share the directory.
 *
 * Whoever can write the directory decides what a run kills and publishes, so it is used only
 * when it is owned by this user and not writable by group or others (it is created 0700), and
 * it is held open: every file is reached through that descriptor, so a directory renamed and
 * replaced after the check is not followed. Only regular files of this user are read, never a
 * link or a FIFO; a file that is not a complete entry is skipped and reported, not fatal.
 */
export class StateDirectoryStore {
  private readonly owner: StateOwner;
  private readonly descriptor: number | undefined;
  /** The path every file is reached through, or undefined for a directory that does not exist (yet). */
  private readonly root: string | undefined;

  constructor(
    readonly directory: string,
    owner: StateOwner = StateDirectoryStore.currentOwner(),
    private readonly isRunning: (owner: ProcessIdentityValue) => boolean = ProcessIdentity.isRunning,
    create = true,
  ) {
    this.owner = owner;
    if (create) mkdirSync(directory, { recursive: true, mode: 0o700 });
    else if (!existsSync(directory)) return;
    this.descriptor = StateDirectoryStore.openSafely(directory);
    const viaDescriptor = `/proc/self/fd/${this.descriptor}`;
    this.root = existsSync(viaDescriptor) ? viaDescriptor : directory;
  }

  /** This process, and where it runs. */
  static currentOwner(): StateOwner {
    const host = HostIdentity.current();
    return { ...ProcessIdentity.current(), ...(host ? { host } : {}) };
  }

  /** Whether any supervisor has an entry for `commandId` here. */
  has(commandId: string): boolean {
    return this.files().some((file) => file.commandId === commandId);
  }

  /** Every entry, in the order of their names, with whether its supervisor runs; and what is not one. */
  list(): Listing {
    const entries: ListedEntry[] = [];
    const skipped: SkippedEntry[] = [];
    for (const { name, commandId, owner } of this.files()) {
      const read = this.read(name, commandId);
      if (read === undefined) continue;
      if ('problem' in read) skipped.push({ name, problem: read.problem });
      else entries.push({ entry: read.entry, owner, supervisor: StateDirectoryStore.shown(this.whereabouts(owner)) });
    }
    return { entries, skipped };
  }

  /** Removes the entry of `commandId` (whatever the file holds) if its supervisor is gone. */
  forget(commandId: string): ForgetResult {
    const files = this.files().filter((file) => file.commandId === commandId);
    if (files.length === 0) return 'not_found';
    const whereabouts = files.map(({ owner }) => this.whereabouts(owner));
    if (whereabouts.some((where) => where === 'own' || where === 'running')) return 'running';
    if (whereabouts.some((where) => where === 'other_pid_namespace' || where === 'other_machine')) return 'elsewhere';
    for (const { name } of files) {
      try {
        unlinkSync(this.at(name));
      } catch (error) {
        // Taken over since: by a supervisor that runs now.
        if (errorCode(error) === 'ENOENT') return 'running';
        throw error;
      }
    }
    this.syncDirectory();
    return 'forgotten';
  }

  /** Writes (or rewrites) an entry owned by this process, durably. */
  save(entry: StateEntry): void {
    this.write(entry, this.pathOf(entry.command_id, this.owner));
  }

  /**
   * Writes `entry` to `path` through a temporary file of this process (a leftover is tidied by
   * a later run, as any): fsync, rename over, fsync of the directory.
   */
  private write(entry: StateEntry, path: string): void {
    const temp = `${this.pathOf(entry.command_id, this.owner)}.tmp`;
    const fd = StateDirectoryStore.createTemporary(temp);
    try {
      writeSync(fd, `${JSON.stringify(entry, null, 2)}\n`);
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      unlinkSync(temp);
      throw error;
    }
    closeSync(fd);
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
   * are removed. An entry of a supervisor in another PID namespace or on another machine is
   * never taken: whether it still runs cannot be told from here.
   */
  takeOverAbandoned(sessionId: string): TakeOver {
    const taken: StateEntry[] = [];
    const skipped: SkippedEntry[] = [];
    let rejected = 0;
    let otherSessions = 0;
    let elsewhere = 0;
    for (const name of this.names()) {
      const temp = StateDirectoryStore.parse(TEMP_NAME, name);
      if (temp) {
        if (this.abandoned(this.whereabouts(temp.owner))) this.removeLeftover(name);
        continue;
      }
      const file = StateDirectoryStore.parse(ENTRY_NAME, name);
      if (!file) continue;
      const where = this.whereabouts(file.owner);
      if (where === 'other_pid_namespace' || where === 'other_machine') elsewhere++;
      if (!this.abandoned(where)) continue;
      const read = this.read(name, file.commandId);
      // Undefined: taken over and removed by another supervisor since readdir.
      if (read === undefined) continue;
      if ('problem' in read) {
        skipped.push({ name, problem: read.problem });
        continue;
      }
      const { entry } = read;
      if (entry.rejected) {
        if (!entry.rejection_announced && this.markAnnounced(name, entry)) rejected++;
        continue;
      }
      if (entry.session_id !== sessionId) {
        otherSessions++;
        continue;
      }
      try {
        renameSync(this.at(name), this.pathOf(entry.command_id, this.owner));
      } catch (error) {
        // Another supervisor won the race for it.
        if (errorCode(error) === 'ENOENT') continue;
        throw error;
      }
      // Its command ran before this boot: gone, and its pid now names another process.
      if (where === 'rebooted') delete entry.command_process;
      taken.push(entry);
    }
    if (taken.length > 0) this.syncDirectory();
    return { entries: taken, rejected, otherSessions, elsewhere, skipped };
  }

  /**
   * Records in the refused entry in file `name` (of a supervisor that is gone) that it has been
   * announced, under the same name and owner: the same atomic write as {@link save}, so a crash
   * leaves it announced or not, never torn. False when it could not be recorded (the file or
   * the directory went away meanwhile): a later run announces it again, nothing is lost.
   */
  private markAnnounced(name: string, entry: StateEntry): boolean {
    try {
      this.write({ ...entry, rejection_announced: true }, this.at(name));
      return true;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
  }

  /** Opens the directory if it is one of this user's that nobody else may write; else throws. */
  private static openSafely(directory: string): number {
    let fd: number;
    try {
      // The real path, opened without following a link: what is checked is what is used.
      fd = openSync(realpathSync(directory), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      throw new UnsafeStateDirectoryError(directory, `cannot open it as a directory (${errorCode(error) ?? String(error)})`);
    }
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    const problem =
      uid !== undefined && stat.uid !== uid
        ? `it is owned by another user (uid ${stat.uid}); give a directory of your own with --state-dir`
        : (stat.mode & 0o022) !== 0
          ? `group or others may write to it (mode ${(stat.mode & 0o777).toString(8)}); chmod go-w it or give another --state-dir`
          : undefined;
    if (problem !== undefined) {
      closeSync(fd);
      throw new UnsafeStateDirectoryError(directory, problem);
    }
    return fd;
  }

  /** A new file of this user only: not one that exists, not through a link. */
  private static createTemporary(path: string): number {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    try {
      return openSync(path, flags, 0o600);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      // Left by a save of this process that failed half-way: unlinking removes the name, never
      // what a link points to.
      unlinkSync(path);
      return openSync(path, flags, 0o600);
    }
  }

  private static parse(pattern: RegExp, name: string): { commandId: string; owner: StateOwner } | undefined {
    const match = pattern.exec(name);
    if (!match) return undefined;
    const [, commandId, pid, token, pidNamespace, bootId, machineId] = match;
    const host =
      pidNamespace === undefined
        ? {}
        : { host: { pidNamespace, bootId: bootId!, ...(machineId === '-' ? {} : { machineId: machineId! }) } };
    return { commandId: commandId!, owner: { pid: Number(pid), token: token!, ...host } };
  }

  private static shown(where: Whereabouts): SupervisorState {
    switch (where) {
      case 'own':
      case 'running':
        return 'running';
      case 'gone':
      case 'rebooted':
        return 'gone';
      case 'other_pid_namespace':
        return 'other-pid-namespace';
      case 'other_machine':
        return 'other-machine';
    }
  }

  private whereabouts(owner: StateOwner): Whereabouts {
    if (StateDirectoryStore.ownerName(owner) === StateDirectoryStore.ownerName(this.owner)) return 'own';
    const relation = HostIdentity.relation(this.owner.host, owner.host);
    if (relation !== 'here') return relation;
    return this.isRunning(owner) ? 'running' : 'gone';
  }

  private abandoned(where: Whereabouts): boolean {
    return where === 'gone' || where === 'rebooted';
  }

  private names(): string[] {
    return this.root === undefined ? [] : readdirSync(this.root).sort();
  }

  private files(): Array<{ name: string; commandId: string; owner: StateOwner }> {
    return this.names().flatMap((name) => {
      const file = StateDirectoryStore.parse(ENTRY_NAME, name);
      return file ? [{ name, ...file }] : [];
    });
  }

  /**
   * The entry in file `name`, why the file is not one, or undefined when it was renamed away
   * since it was listed. Checked before it is opened (no link, no FIFO: opening one would
   * wait for a writer) and again on the open file.
   */
  private read(name: string, commandId: string): { entry: StateEntry } | { problem: string } | undefined {
    const path = this.at(name);
    try {
      const found = lstatSync(path);
      if (found.isSymbolicLink()) return { problem: 'a symbolic link' };
      if (!found.isFile()) return { problem: 'not a regular file' };
      const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      let text: string;
      try {
        const stat = fstatSync(fd);
        const uid = process.getuid?.();
        if (!stat.isFile()) return { problem: 'not a regular file' };
        if (uid !== undefined && stat.uid !== uid) return { problem: `owned by another user (uid ${stat.uid})` };
        if (stat.size > MAX_ENTRY_BYTES) return { problem: `larger than ${MAX_ENTRY_BYTES} bytes` };
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { problem: 'not a complete JSON entry (torn or corrupt)' };
      }
      return StateEntryValidator.validate(value, commandId);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      if (errorCode(error) === 'ELOOP') return { problem: 'a symbolic link' };
      throw error;
    }
  }

  /** Removes a dead supervisor's leftover temporary file: tidying only, so never fatal (a directory of that name stays). */
  private removeLeftover(name: string): void {
    try {
      unlinkSync(this.at(name));
    } catch {
      // Gone already (another run tidied it), or not a file.
    }
  }

  private at(name: string): string {
    if (this.root === undefined) throw new Error(`the state directory ${this.directory} does not exist`);
    return join(this.root, name);
  }

  private pathOf(commandId: string, owner: StateOwner): string {
    return this.at(`${commandId}.${StateDirectoryStore.ownerName(owner)}.json`);
  }

  private static ownerName({ pid, token, host }: StateOwner): string {
    return host ? `${pid}.${token}.${host.pidNamespace}.${host.bootId}.${host.machineId ?? '-'}` : `${pid}.${token}`;
  }

  private syncDirectory(): void {
    if (this.descriptor !== undefined) fsyncSync(this.descriptor);
  }
}
