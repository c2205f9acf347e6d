import { readFileSync } from 'node:fs';

/** A process as the state directory names it: its pid and a token that tells a reused pid apart. */
export interface ProcessIdentityValue {
  readonly pid: number;
  readonly token: string;
}

/** What `/proc/<pid>/stat` says of a process. */
interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), ... */
  readonly state: string;
  /** Field 22: the start time in clock ticks since boot. */
  readonly startTime: string;
}

/**
 * Tells whether a process (a supervisor that owns a state entry, or its command) still runs.
 * The token is the process's start time (Linux `/proc/<pid>/stat`, field 22), so a pid reused by
 * another process does not count; a zombie (killed, not reaped yet: for ever under a parent or
 * PID 1 that never reaps) does not run, although `kill(pid, 0)` still succeeds on it. Where
 * `/proc` is not available the token is `0` and only the pid is checked.
 */
export class ProcessIdentity {
  /** This process. */
  static current(): ProcessIdentityValue {
    return ProcessIdentity.of(process.pid);
  }

  /** The process `pid`, which must be alive (e.g. a child not reaped yet). */
  static of(pid: number): ProcessIdentityValue {
    return { pid, token: ProcessIdentity.stat(pid)?.startTime ?? '0' };
  }

  /** True while the process `pid` that had `token` still runs (and is not a zombie). */
  static isRunning(owner: ProcessIdentityValue): boolean {
    try {
      process.kill(owner.pid, 0);
    } catch (error) {
      // EPERM: it exists, owned by another user.
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
    const stat = ProcessIdentity.stat(owner.pid);
    // Without /proc (another OS) the pid alone decides.
    if (stat === undefined) return owner.token === '0';
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return owner.token === '0' || stat.startTime === owner.token;
  }

  private static stat(pid: number): ProcStat | undefined {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return undefined;
    }
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, startTime: fields[19]! };
  }
}
