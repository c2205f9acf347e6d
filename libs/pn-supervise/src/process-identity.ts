import { readFileSync } from 'node:fs';

/** A process as the state directory names it: its pid and a token that tells a reused pid apart. */
export interface ProcessIdentityValue {
  readonly pid: number;
  readonly token: string;
}

/**
 * Tells whether the process that owns a state entry still runs. The token is the process's
 * start time (Linux `/proc/<pid>/stat`, field 22), so a pid reused by another process does not
 * count as the owner; where `/proc` is not available the token is `0` and only the pid is checked.
 */
export class ProcessIdentity {
  /** This process. */
  static current(): ProcessIdentityValue {
    return { pid: process.pid, token: ProcessIdentity.startToken(process.pid) ?? '0' };
  }

  /** True while the process `pid` that had `token` still runs. */
  static isRunning(owner: ProcessIdentityValue): boolean {
    try {
      process.kill(owner.pid, 0);
    } catch (error) {
      // EPERM: it exists, owned by another user.
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
    if (owner.token === '0') return true;
    const token = ProcessIdentity.startToken(owner.pid);
    return token === undefined || token === owner.token;
  }

  private static startToken(pid: number): string | undefined {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return fields[19];
    } catch {
      return undefined;
    }
  }
}
