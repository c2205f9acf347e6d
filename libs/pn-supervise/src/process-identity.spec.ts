import { spawn } from 'node:child_process';
import { ProcessIdentity } from './process-identity.js';

describe('ProcessIdentity', () => {
  it('this process runs', () => {
    expect(ProcessIdentity.isRunning(ProcessIdentity.current())).toBe(true);
  });

  it('a process that exited does not run', async () => {
    const child = spawn('true');
    await new Promise((done) => child.once('exit', done));
    expect(ProcessIdentity.isRunning({ pid: child.pid!, token: '1' })).toBe(false);
  });

  it('a live pid with another start token is a reused pid, not the owner', () => {
    const me = ProcessIdentity.current();
    // Where /proc gives no start time the pid alone decides; the test needs /proc.
    if (me.token === '0') return;
    expect(ProcessIdentity.isRunning({ pid: me.pid, token: String(Number(me.token) + 1) })).toBe(false);
  });
});
