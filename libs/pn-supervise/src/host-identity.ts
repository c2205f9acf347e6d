import { readFileSync, readlinkSync } from 'node:fs';

/**
 * What a pid and a start time are relative to: a pid names a process only within its PID
 * namespace, and a start time (clock ticks since boot) only within one boot of one machine.
 */
export interface HostIdentityValue {
  /** The inode of the PID namespace (`/proc/self/ns/pid` reads `pid:[N]`). */
  readonly pidNamespace: string;
  /** `/proc/sys/kernel/random/boot_id` without its dashes: new at every boot. */
  readonly bootId: string;
  /** `/etc/machine-id`, where there is one (often not in a container). */
  readonly machineId?: string;
}

/**
 * Where the supervisor that owns a state entry runs, seen from this one:
 * - `here`: this PID namespace on this boot, so its pid and start time can be checked;
 * - `other_pid_namespace`: this boot, another PID namespace (another container on one volume):
 *   whether it runs cannot be told from here;
 * - `other_machine`: another boot and another machine id (a directory on a network file
 *   system): cannot be told either;
 * - `rebooted`: another boot, and no other machine id: this machine was rebooted since, so the
 *   supervisor and its command are certainly gone.
 */
export type HostRelation = 'here' | 'rebooted' | 'other_pid_namespace' | 'other_machine';

const HEX32 = /^[0-9a-f]{32}$/;

/** This process's {@link HostIdentityValue}, and how another one relates to it. */
export class HostIdentity {
  private static cached: HostIdentityValue | null | undefined;

  /** Where this process runs; undefined where `/proc` does not say (not Linux). */
  static current(): HostIdentityValue | undefined {
    if (HostIdentity.cached === undefined) HostIdentity.cached = HostIdentity.read() ?? null;
    return HostIdentity.cached ?? undefined;
  }

  /**
   * How `there` (an entry's owner) relates to `here`. An owner that recorded nothing (an entry
   * written before supervisors recorded it, or without `/proc`) is taken to be here, as the
   * version that wrote it assumed.
   */
  static relation(here: HostIdentityValue | undefined, there: HostIdentityValue | undefined): HostRelation {
    if (!here || !there) return 'here';
    // One boot id is one boot of one kernel (containers share the host's): the machine is this one.
    if (here.bootId === there.bootId) return here.pidNamespace === there.pidNamespace ? 'here' : 'other_pid_namespace';
    return here.machineId && there.machineId && here.machineId !== there.machineId ? 'other_machine' : 'rebooted';
  }

  private static read(): HostIdentityValue | undefined {
    try {
      const pidNamespace = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '');
      if (pidNamespace === undefined || !HEX32.test(bootId)) return undefined;
      const machineId = HostIdentity.machineId();
      return { pidNamespace, bootId, ...(machineId === undefined ? {} : { machineId }) };
    } catch {
      return undefined;
    }
  }

  private static machineId(): string | undefined {
    try {
      const id = readFileSync('/etc/machine-id', 'utf8').trim();
      return HEX32.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  }
}
