import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessIdentityValue } from './process-identity.js';
import { StateDirectoryStore } from './state-directory.store.js';
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
    writeFileSync(join(dir, deadTemp), '{"half');
    writeFileSync(join(dir, liveTemp), '{"half');
    storeOf(22).takeOverAbandoned(SESSION);
    expect(readdirSync(dir)).toEqual([liveTemp]);
  });
});
