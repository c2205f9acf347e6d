import { spawnSync } from 'node:child_process';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { markedBlock } from '../support/doc-commands.js';
import { startServer } from '../supervisor/support/test-helpers.js';

// The README's curl walk-through of the HTTP API, run as written with bash against the real
// server. Only two lines are the reader's own (the admin token and the base URL), and the two
// event streams, which a reader ends with Ctrl-C, end after 2 s here.
describe("the README's HTTP walk-through", () => {
  let data: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  beforeAll(() => {
    data = tempDir();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it('runs as written: a session, a loop, a delivery and its retry, consumes, the journal, both streams, rotation and closing', async () => {
    server = await startServer(data.file('db'));
    const block = markedBlock('README.md', 'http-walkthrough', 'sh');
    expect(block).toMatch(/^ADMIN=\.\.\. .*\nBASE=http:\/\/localhost:3000\n/);
    const script = [
      'set -e',
      // A stream (`curl -N`) runs until the reader stops it: here after 2 s (exit 28 is that).
      'curl() { case " $* " in *" -N "*) command curl --max-time 2 "$@" || [ $? -eq 28 ];; *) command curl "$@";; esac; }',
      block.replace(/^ADMIN=\.\.\..*$/m, `ADMIN=${SERVER_ADMIN_TOKEN}`).replace(/^BASE=.*$/m, `BASE=${server.url}`),
      // What the reader would look at last: the closed session, read with the admin token.
      'curl -s $BASE/v1/sessions/$SID -H "Authorization: Bearer $ADMIN"',
    ].join('\n');
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/HTTP\/1\.1 202 Accepted[\s\S]*"disposition":"accepted"/);
    expect(out).toMatch(/HTTP\/1\.1 200 OK[\s\S]*idempotent-replayed: true[\s\S]*"disposition":"duplicate"/i);
    expect(out).toContain('"consumed":true');
    expect(out).toMatch(/"results":\[\{"command_id":"[0-9a-f-]+","consumed":false/);
    expect(out).toContain('"next_after"');
    expect(out).toMatch(/id: \d+\ndata: \{"sequence"/);
    expect(out).toMatch(/"state":"closed"/);
  });
});
