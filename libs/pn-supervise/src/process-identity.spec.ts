import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

  it('a zombie (killed, never reaped by its parent) does not run, although kill(pid, 0) still succeeds on it', async () => {
    // The second `sleep` inherits the first and never reaps it. It outlives the test (killed
    // below): were it to end first, init would reap the zombie before it is looked at.
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((done) => parent.stdout.once('data', (chunk: Buffer) => done(chunk.toString()))));
      const state = (): string => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
      };
      for (const deadline = Date.now() + 15_000; state() !== 'Z' && Date.now() < deadline;) {
        await new Promise((next) => setTimeout(next, 20));
      }
      expect(state()).toBe('Z');
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(ProcessIdentity.isRunning(ProcessIdentity.of(pid))).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
