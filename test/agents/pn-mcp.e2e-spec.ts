import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from '../supervisor/support/api.js';
import { eventually, freePort, startServer } from '../supervisor/support/test-helpers.js';
import { PnMcpClient } from './support/pn-mcp-client.js';
import { PN_MAIN, PnProcess, pnEnvironment } from './support/pn-process.js';

// `pn mcp` (spec section 16) driven by the MCP TypeScript SDK's own client over stdio, as an
// agent host drives it, against the real server and real supervisors.

describe('pn mcp: the four tools over stdio', () => {
  const dir = tempDir();
  let server: ServerProcess;
  let session: TestSession;
  let host: PnMcpClient;
  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
    session = await TestSession.open(server.url);
    host = await PnMcpClient.connect(process.execPath, [PN_MAIN, 'mcp'], {
      env: { ...pnEnvironment(session), PN_SUPERVISOR_STATE_DIR: dir.file('state') },
      cwd: dir.path,
    });
  });
  afterAll(async () => {
    await host?.close();
    await server?.stop('SIGKILL');
    dir.remove();
  });

  it('lists the four tools, each with an input and an output schema', async () => {
    const { tools } = await host.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['consume', 'list_completions', 'start_command', 'wait_for_completion']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const wait = tools.find((tool) => tool.name === 'wait_for_completion')!;
    expect(wait.inputSchema.properties).toMatchObject({ command_id: { type: 'string' }, timeout_s: { type: 'number', maximum: 300 } });
  });

  it('starts a command, waits for it (with progress at least every 5 s), lists and consumes it', async () => {
    const started = await host.call('start_command', { argv: ['sh', '-c', 'sleep 7; echo out; exit 4'] });
    expect(started.isError).toBe(false);
    expect(started.structured).toEqual({
      command_id: expect.any(String),
      process_handle: expect.stringMatching(/^sh-[0-9a-f]{8}$/),
      log_path: expect.any(String),
    });
    expect(JSON.parse(started.text)).toEqual(started.structured);
    const commandId = started.structured!.command_id as string;

    const progressAt: number[] = [];
    const began = Date.now();
    const waited = await host.call('wait_for_completion', { command_id: commandId, timeout_s: 60 }, () => progressAt.push(Date.now()));
    expect(waited.isError).toBe(false);
    expect(waited.structured).toMatchObject({
      done: true,
      notification: { command_id: commandId, state: 'exited', outcome: { kind: 'completed', exit_code: 4 } },
    });
    expect(JSON.parse(waited.text)).toEqual(waited.structured);
    // About 7 s of waiting: told at least once, never 5 s without a word.
    expect(progressAt.length).toBeGreaterThan(0);
    [began, ...progressAt].forEach((at, index, all) => index > 0 && expect(at - all[index - 1]!).toBeLessThanOrEqual(5_000));
    expect(readFileSync(started.structured!.log_path as string, 'utf8')).toContain('out\n');

    const listed = await host.call('list_completions', {});
    expect(listed.structured).toEqual({ notifications: await session.pending() });

    const unknown = randomUUID();
    const consumed = await host.call('consume', { command_ids: [commandId, unknown] });
    expect(consumed.structured).toEqual({ consumed: [commandId], already: [], unknown: [unknown] });
    expect((await host.call('consume', { command_ids: [commandId] })).structured).toEqual({
      consumed: [],
      already: [commandId],
      unknown: [],
    });
    expect(await session.pending()).toEqual([]);
  });

  it('nothing by the timeout is not an error: {done: false}', async () => {
    const waited = await host.call('wait_for_completion', { command_id: randomUUID(), timeout_s: 1 });
    expect(waited).toMatchObject({ isError: false, structured: { done: false } });
  });

  it.each([
    ['a wait longer than 300 s', 'wait_for_completion', { command_id: randomUUID(), timeout_s: 301 }],
    ['a command id that is not one', 'wait_for_completion', { command_id: 'nope' }],
    ['an empty argv', 'start_command', { argv: [] }],
    ['no command ids', 'consume', { command_ids: [] }],
  ])('bad input (%s) is a tool error in one line; the server goes on', async (_what, tool, args) => {
    const answer = await host.call(tool, args);
    expect(answer.isError).toBe(true);
    expect(answer.text).not.toContain('\n');
    expect((await host.client.listTools()).tools).toHaveLength(4);
  });

  it('a command the server refuses to start (its check fails) is a tool error, and not run', async () => {
    const other = await PnMcpClient.connect(process.execPath, [PN_MAIN, 'mcp'], {
      env: { ...pnEnvironment(session), PN_TOKEN: 'not-the-token', PN_SUPERVISOR_STATE_DIR: dir.file('state') },
      cwd: dir.path,
    });
    try {
      const marker = dir.file(`ran-${randomUUID()}`);
      const answer = await other.call('start_command', { argv: ['touch', marker] });
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^[^\n]*unauthorized[^\n]*$/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('a server that does not answer is a tool error naming it; the MCP server goes on', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const other = await PnMcpClient.connect(process.execPath, [PN_MAIN, 'mcp'], { env: { ...pnEnvironment(session), PN_SERVER_URL: url } });
    try {
      for (const [tool, args] of [
        ['list_completions', {}],
        ['wait_for_completion', { command_id: randomUUID(), timeout_s: 1 }],
      ] as const) {
        const answer = await other.call(tool, args);
        expect(answer.isError).toBe(true);
        expect(answer.text).toContain(url);
        expect(answer.text).not.toContain('\n');
      }
      expect((await other.client.listTools()).tools).toHaveLength(4);
    } finally {
      await other.close();
    }
  });

  it('a command started through it outlives the MCP server', async () => {
    const other = await PnMcpClient.connect(process.execPath, [PN_MAIN, 'mcp'], {
      env: { ...pnEnvironment(session), PN_SUPERVISOR_STATE_DIR: dir.file('state') },
      cwd: dir.path,
    });
    const marker = dir.file(`done-${randomUUID()}`);
    const started = await other.call('start_command', { argv: ['sh', '-c', `sleep 3; echo done > '${marker}'`], cwd: dir.path });
    const pid = other.transport.pid!;
    await other.close();
    await eventually(
      () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z',
      'the MCP server to end',
    );
    expect(existsSync(marker)).toBe(false);
    const waited = await PnProcess.run(['wait', started.structured!.command_id as string, '--timeout', '60'], {
      env: pnEnvironment(session),
    });
    expect(waited.status).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('done\n');
  });
});
