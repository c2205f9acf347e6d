import { readFileSync } from 'node:fs';
import { HostIdentity, type HostIdentityValue } from './host-identity.js';

describe('HostIdentity', () => {
  const here: HostIdentityValue = { pidNamespace: '4026531836', bootId: 'a'.repeat(32), machineId: 'c'.repeat(32) };

  it('reads this process’s PID namespace, boot id and machine id from /proc and /etc', () => {
    const current = HostIdentity.current();
    expect(current).toBeDefined();
    expect(current!.bootId).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, ''));
    expect(current!.pidNamespace).toMatch(/^\d+$/);
  });

  it('relates an owner to this process: here, another namespace, a reboot, another machine', () => {
    expect(HostIdentity.relation(here, { ...here })).toBe('here');
    expect(HostIdentity.relation(here, { ...here, pidNamespace: '1' })).toBe('other_pid_namespace');
    // One boot id is one kernel: a machine id that differs (a container's own) does not matter.
    expect(HostIdentity.relation(here, { ...here, pidNamespace: '1', machineId: 'd'.repeat(32) })).toBe('other_pid_namespace');
    expect(HostIdentity.relation(here, { ...here, bootId: 'b'.repeat(32) })).toBe('rebooted');
    expect(HostIdentity.relation(here, { pidNamespace: '1', bootId: 'b'.repeat(32) })).toBe('rebooted');
    expect(HostIdentity.relation(here, { ...here, bootId: 'b'.repeat(32), machineId: 'd'.repeat(32) })).toBe('other_machine');
    // An entry of an older supervisor, or no /proc here: its pid decides, as before.
    expect(HostIdentity.relation(here, undefined)).toBe('here');
    expect(HostIdentity.relation(undefined, here)).toBe('here');
  });
});
