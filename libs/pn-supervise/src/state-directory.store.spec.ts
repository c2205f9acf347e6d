import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostIdentityValue } from './host-identity.js';
import type { ProcessIdentityValue } from './process-identity.js';
import { StateDirectoryCommands } from './state-directory.commands.js';
import { StateDirectoryStore, type StateOwner } from './state-directory.store.js';
import type { StateEntry } from './state-entry.interface.js';
import { stateEntry } from '../../../test/supervisor/support/state-entry.fixture.js';

const SESSION = randomUUID();

const entry = (overrides: Partial<StateEntry> = {}): StateEntry => stateEntry({ session_id: SESSION, ...overrides });

describe('StateDirectoryStore', () => {
  let dir: string;
  // Owners are fake pids whose liveness the test decides.
  const alive = new Set<number>();
  const isRunning = (owner: ProcessIdentityValue): boolean => alive.has(owner.pid);
  const storeOf = (pid: number): StateDirectoryStore => {
    alive.add(pid);
    return new StateDirectoryStore(dir, { pid, token: '77' }, isRunning);
  };

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'pn-store-')), 'state');
    alive.clear();
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('creates the directory, saves an entry as one complete file, rewrites it in place and removes it', () => {
    const store = storeOf(100);
    const saved = entry();
    store.save(saved);
    expect(readdirSync(dir)).toEqual([`${saved.command_id}.100.77.json`]);
    saved.started_at = '2026-01-01T00:00:01.000Z';
    saved.published.push('started');
    store.save(saved);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8'))).toEqual(saved);
    store.remove(saved);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over only entries whose supervisor is gone, of its own session, and not refused before', () => {
    const live = storeOf(1);
    const dead = storeOf(2);
    const mine = entry();
    const otherSession = entry({ session_id: randomUUID() });
    const refused = entry({ rejected: { status: 401, code: 'unauthorized', detail: 'no' } });
    const stillOwned = entry();
    dead.save(mine);
    dead.save(otherSession);
    dead.save(refused);
    live.save(stillOwned);
    alive.delete(2);

    const takeOver = storeOf(3).takeOverAbandoned(SESSION);
    expect(takeOver.entries).toEqual([mine]);
    expect(takeOver).toMatchObject({ rejected: 1, otherSessions: 1 });
    expect(readdirSync(dir).sort()).toEqual(
      [
        `${mine.command_id}.3.77.json`,
        `${otherSession.command_id}.2.77.json`,
        `${refused.command_id}.2.77.json`,
        `${stillOwned.command_id}.1.77.json`,
      ].sort(),
    );
    // Now owned by a live supervisor: nobody else takes it.
    expect(storeOf(4).takeOverAbandoned(SESSION).entries).toEqual([]);
  });

  it('counts a refused entry once: the first run that finds it records that it said so, under the same name', () => {
    const dead = storeOf(5);
    const refused = entry({ rejected: { status: 401, code: 'unauthorized', detail: 'no' } });
    dead.save(refused);
    alive.delete(5);
    const name = `${refused.command_id}.5.77.json`;

    expect(storeOf(6).takeOverAbandoned(SESSION).rejected).toBe(1);
    expect(readdirSync(dir)).toEqual([name]);
    expect(JSON.parse(readFileSync(join(dir, name), 'utf8'))).toEqual({ ...refused, rejection_announced: true });
    alive.delete(6);
    expect(storeOf(7).takeOverAbandoned(SESSION).rejected).toBe(0);
    // Still there for status and forget.
    expect(
      storeOf(8)
        .list()
        .entries.map((listed) => listed.entry.command_id),
    ).toEqual([refused.command_id]);
    expect(readdirSync(dir)).toEqual([name]);
  });

  it('entries taken over by one supervisor are not taken again by the next one', () => {
    const dead = storeOf(10);
    const entries = Array.from({ length: 20 }, () => entry());
    entries.forEach((e) => dead.save(e));
    alive.delete(10);
    const a = storeOf(11);
    const b = storeOf(12);
    // (Two supervisors racing for them at once: see the durability e2e test.)
    const first = a.takeOverAbandoned(SESSION).entries;
    const second = b.takeOverAbandoned(SESSION).entries;
    expect(first.length + second.length).toBe(20);
    expect(second).toEqual([]);
    expect(readdirSync(dir).every((name) => name.endsWith('.11.77.json'))).toBe(true);
  });

  it('removes temporary files a dead supervisor left half-written, keeps a live one’s', () => {
    storeOf(20);
    alive.delete(20);
    storeOf(21);
    const deadTemp = `${randomUUID()}.20.77.json.tmp`;
    const liveTemp = `${randomUUID()}.21.77.json.tmp`;
    // Named like one, but a directory: left, and no reason to stop.
    const odd = `${randomUUID()}.20.77.json.tmp`;
    writeFileSync(join(dir, deadTemp), '{"half');
    writeFileSync(join(dir, liveTemp), '{"half');
    mkdirSync(join(dir, odd));
    storeOf(22).takeOverAbandoned(SESSION);
    expect(readdirSync(dir).sort()).toEqual([liveTemp, odd].sort());
  });

  it('lists every entry with whether its supervisor runs; forgets only one whose supervisor is gone', () => {
    const live = storeOf(30);
    const dead = storeOf(31);
    const running = entry({ started_at: '2026-01-01T00:00:01.000Z' });
    const refused = entry({
      completion: {
        state: 'exited',
        reason: 'exited',
        has_exit_code: true,
        exit_code: 1,
        finished_at: '2026-01-01T00:00:02.000Z',
        exit_status: 1,
      },
      rejected: { status: 403, code: 'forbidden', detail: 'no' },
    });
    live.save(running);
    dead.save(refused);
    alive.delete(31);
    // A reader that owns nothing and creates nothing.
    const reader = new StateDirectoryStore(dir, { pid: 99, token: '77' }, isRunning, false);
    const lines = reader.list().entries.map(StateDirectoryCommands.line);
    expect(lines.sort()).toEqual(
      [
        `${running.command_id} session=${SESSION} loop=${running.loop_id} handle=make left=started,completed,notification supervisor=running refused=no`,
        `${refused.command_id} session=${SESSION} loop=${refused.loop_id} handle=make left=completed,notification supervisor=gone refused=403/forbidden`,
      ].sort(),
    );
    expect(reader.has(running.command_id)).toBe(true);
    expect(reader.forget(running.command_id)).toBe('running');
    expect(reader.forget(randomUUID())).toBe('not_found');
    expect(reader.forget(refused.command_id)).toBe('forgotten');
    expect(readdirSync(dir)).toEqual([`${running.command_id}.30.77.json`]);
    expect(reader.has(refused.command_id)).toBe(false);
  });

  it('status of a directory that does not exist: nothing, and it is not created', () => {
    const missing = join(dir, 'missing');
    const out: string[] = [];
    expect(
      new StateDirectoryCommands(
        missing,
        (line) => out.push(line),
        () => undefined,
      ).status(),
    ).toBe(0);
    expect(out).toEqual([]);
    expect(() => readdirSync(missing)).toThrow();
  });

  it('creates the directory 0700; refuses one that group or others may write, or that another user owns', () => {
    storeOf(40);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    chmodSync(dir, 0o770);
    expect(() => storeOf(41)).toThrow(/^refusing the state directory .*: group or others may write to it \(mode 770\)/);
    chmodSync(dir, 0o755);
    expect(() => storeOf(42)).not.toThrow();
    // Tests run as root: another user is nobody.
    if (process.getuid?.() !== 0) return;
    chownSync(dir, Number(execFileSync('id', ['-u', 'nobody']).toString()), 0);
    chmodSync(dir, 0o700);
    expect(() => storeOf(43)).toThrow(/^refusing the state directory .*: it is owned by another user/);
    expect(() => new StateDirectoryStore(dir, { pid: 44, token: '77' }, isRunning, false)).toThrow(/owned by another user/);
  });

  it('a temporary file planted as a link: removed, never written through; the entry is saved', () => {
    const store = storeOf(50);
    const victim = join(dir, '..', 'victim');
    writeFileSync(victim, 'precious\n');
    const saved = entry();
    symlinkSync(victim, join(dir, `${saved.command_id}.50.77.json.tmp`));
    store.save(saved);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readdirSync(dir)).toEqual([`${saved.command_id}.50.77.json`]);
    expect(statSync(join(dir, `${saved.command_id}.50.77.json`)).mode & 0o777).toBe(0o600);
  });

  it('files that are not entries (torn, a link, a FIFO) are skipped and reported, by list and take-over alike', () => {
    const store = storeOf(60);
    alive.delete(60);
    const good = entry();
    store.save(good);
    const torn = `${randomUUID()}.60.77.json`;
    const link = `${randomUUID()}.60.77.json`;
    const fifo = `${randomUUID()}.60.77.json`;
    writeFileSync(join(dir, torn), '{"version":1,');
    symlinkSync(join(dir, `${good.command_id}.60.77.json`), join(dir, link));
    execFileSync('mkfifo', [join(dir, fifo)]);
    const problems = new Map([
      [torn, 'not a complete JSON entry (torn or corrupt)'],
      [link, 'a symbolic link'],
      [fifo, 'not a regular file'],
    ]);
    const expected = [...problems].map(([name, problem]) => ({ name, problem })).sort((a, b) => a.name.localeCompare(b.name));
    const reader = new StateDirectoryStore(dir, { pid: 99, token: '77' }, isRunning, false);
    expect(reader.list().skipped).toEqual(expected);
    expect(reader.list().entries.map((listed) => listed.entry)).toEqual([good]);
    const takeOver = storeOf(61).takeOverAbandoned(SESSION);
    expect(takeOver.entries).toEqual([good]);
    expect(takeOver.skipped).toEqual(expected);
  });

  describe('owners elsewhere', () => {
    const here: HostIdentityValue = { pidNamespace: '4026531836', bootId: 'a'.repeat(32), machineId: 'c'.repeat(32) };
    const owner = (pid: number, host: Partial<HostIdentityValue> = {}): StateOwner => ({ pid, token: '77', host: { ...here, ...host } });
    const hostStore = (self: StateOwner): StateDirectoryStore => new StateDirectoryStore(dir, self, isRunning);

    it('another PID namespace on this boot: never taken over, nor forgotten; status says so', () => {
      // Pid 70 runs here, but in this namespace: whether the owner runs cannot be told.
      alive.add(70);
      const contained = entry({ command_process: { pid: 2, token: '5' } });
      hostStore(owner(70, { pidNamespace: '4026532174' })).save(contained);
      alive.delete(70);
      const store = hostStore(owner(71));
      expect(store.takeOverAbandoned(SESSION)).toMatchObject({ entries: [], elsewhere: 1 });
      expect(store.list().entries.map((listed) => listed.supervisor)).toEqual(['other-pid-namespace']);
      expect(store.forget(contained.command_id)).toBe('elsewhere');
      expect(readdirSync(dir)).toHaveLength(1);
    });

    it('another boot: its supervisor and command are gone: taken over, its command not signalled', () => {
      const old = entry({ command_process: { pid: 71, token: '77' } });
      hostStore(owner(70, { bootId: 'b'.repeat(32) })).save(old);
      // The same pid and start time run now: another process of this boot.
      alive.add(70);
      alive.add(71);
      const taken = hostStore(owner(72)).takeOverAbandoned(SESSION).entries;
      expect(taken.map((e) => e.command_id)).toEqual([old.command_id]);
      expect(taken[0]!.command_process).toBeUndefined();
    });

    it('another boot of another machine (a network file system): left alone', () => {
      hostStore(owner(70, { bootId: 'b'.repeat(32), machineId: 'd'.repeat(32) })).save(entry());
      const store = hostStore(owner(72));
      expect(store.takeOverAbandoned(SESSION)).toMatchObject({ entries: [], elsewhere: 1 });
      expect(store.list().entries.map((listed) => listed.supervisor)).toEqual(['other-machine']);
    });

    it('an entry of an older supervisor (no namespace or boot in its name): its pid and start time decide, as before', () => {
      const legacy = entry();
      storeOf(80).save(legacy);
      const store = hostStore(owner(81));
      expect(store.takeOverAbandoned(SESSION).entries).toEqual([]);
      alive.delete(80);
      expect(store.takeOverAbandoned(SESSION).entries).toEqual([legacy]);
      expect(readdirSync(dir)).toEqual([`${legacy.command_id}.81.77.${here.pidNamespace}.${here.bootId}.${here.machineId}.json`]);
    });
  });
});
