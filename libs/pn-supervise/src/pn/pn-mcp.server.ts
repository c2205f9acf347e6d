import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { resolve } from 'node:path';
import { MAX_CONSUME_BATCH, TimeoutError } from 'process-notifications-client';
import { z } from 'zod';
import type { PnConnection } from './pn-connection.js';
import { SupervisorLauncher } from './supervisor.launcher.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `wait_for_completion`'s bounds (spec section 16): a tool call must end while the host still waits for it. */
const DEFAULT_WAIT_S = 30;
const MAX_WAIT_S = 300;
// Progress while waiting, well within the 5 s the spec allows between two.
const PROGRESS_EVERY_MS = 2_000;

const commandId = z.string().regex(UUID, 'must be a UUID');
/** A notification as the pending view shows it (spec sections 2 and 14); more fields may come. */
const notification = z.looseObject({
  command_id: z.string(),
  session_id: z.string(),
  loop_id: z.string(),
  process_handle: z.string(),
  state: z.string(),
  reason: z.string(),
  sequence: z.number(),
  outcome: z
    .looseObject({
      event_id: z.string(),
      kind: z.string(),
      has_exit_code: z.boolean(),
      exit_code: z.number().nullable(),
      diagnostic: z.string().nullable(),
      process_started_at: z.string().nullable(),
      process_finished_at: z.string().nullable(),
      signal: z.string().nullable().optional(),
    })
    .nullable(),
});

/** The result of a tool: its structured content, and the same JSON as text. */
const result = (content: Record<string, unknown>): CallToolResult => ({
  structuredContent: content,
  content: [{ type: 'text', text: JSON.stringify(content) }],
});

/**
 * `pn mcp` (spec section 16): a Model Context Protocol server over stdio, for the loop of its
 * environment, with the tools `start_command`, `wait_for_completion`, `list_completions` and
 * `consume`. A tool that fails answers `isError` with one line naming the cause; the server goes
 * on. Commands it starts run under detached supervisors: they outlive it.
 */
export class PnMcpServer {
  private readonly server = new McpServer({ name: 'pn', version: '0.1.0' });

  constructor(
    private readonly connection: PnConnection,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.register();
  }

  /** Serves stdin and stdout until the host closes stdin. */
  async serve(): Promise<number> {
    // Every setting is checked before the host is served: a wrong one is a usage error at start.
    void [this.connection.server, this.connection.required('token'), this.connection.sessionId, this.connection.loopId];
    const closed = new Promise<void>((done) => (this.server.server.onclose = done));
    const transport = new StdioServerTransport();
    process.stdin.once('end', () => void this.server.close());
    await this.server.connect(transport);
    await closed;
    return 0;
  }

  private register(): void {
    this.server.registerTool(
      'start_command',
      {
        description:
          'Starts a command in the background under pn-supervise, as the user that runs this server; it outlives this server. ' +
          'Returns its command_id (for wait_for_completion) once the server took the run, and the log file of its output.',
        inputSchema: {
          argv: z.array(z.string()).min(1).describe('the command and its arguments, not run through a shell'),
          cwd: z.string().min(1).optional().describe('where it runs (default: where this server runs)'),
          timeout_s: z.number().positive().max(2_000_000).optional().describe('stop it after this many seconds (reported timed_out)'),
        },
        outputSchema: { command_id: z.string(), process_handle: z.string(), log_path: z.string() },
      },
      ({ argv, cwd, timeout_s }) =>
        this.answer(async () => {
          if (argv[0] === '') throw new Error('argv[0] must name a command');
          const launched = await SupervisorLauncher.launch({
            argv,
            supervisorArgs: timeout_s === undefined ? [] : ['--timeout', String(timeout_s)],
            // One state directory for the server, wherever the command runs.
            stateDir: resolve(this.env.PN_SUPERVISOR_STATE_DIR?.trim() || '.pn-supervisor'),
            cwd: resolve(cwd ?? '.'),
            env: { ...this.env, ...this.connection.supervisorEnvironment() },
          });
          return { command_id: launched.commandId, process_handle: launched.processHandle, log_path: launched.logPath };
        }),
    );
    this.server.registerTool(
      'wait_for_completion',
      {
        description:
          `Waits up to timeout_s seconds (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}) for the completion of a command and how it ended. ` +
          '{done: false} when it has not ended yet: call again.',
        inputSchema: {
          command_id: commandId,
          timeout_s: z
            .number()
            .min(0)
            .max(MAX_WAIT_S)
            .optional()
            .describe(`seconds to wait, default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}`),
        },
        outputSchema: { done: z.boolean(), notification: notification.optional() },
      },
      ({ command_id, timeout_s }, extra) => this.answer(() => this.waitFor(command_id.toLowerCase(), timeout_s ?? DEFAULT_WAIT_S, extra)),
    );
    this.server.registerTool(
      'list_completions',
      {
        description: "The loop's pending completions (not consumed yet), oldest first, each with how its command ended once known.",
        inputSchema: {},
        outputSchema: { notifications: z.array(notification) },
      },
      () =>
        this.answer(async () => {
          const pending = await this.connection.client().pendingNotifications(this.connection.sessionId, this.connection.loopId);
          return { notifications: pending.notifications };
        }),
    );
    this.server.registerTool(
      'consume',
      {
        description: 'Consumes completions the agent has dealt with, freeing their place in the loop.',
        inputSchema: { command_ids: z.array(commandId).min(1).max(MAX_CONSUME_BATCH) },
        outputSchema: { consumed: z.array(z.string()), already: z.array(z.string()), unknown: z.array(z.string()) },
      },
      ({ command_ids }) =>
        this.answer(async () => {
          const { results } = await this.connection.client().consumeMany(
            this.connection.sessionId,
            this.connection.loopId,
            command_ids.map((id) => id.toLowerCase()),
          );
          const answer = { consumed: [] as string[], already: [] as string[], unknown: [] as string[] };
          for (const item of results) {
            if ('code' in item) answer.unknown.push(item.command_id);
            else (item.consumed ? answer.consumed : answer.already).push(item.command_id);
          }
          return answer;
        }),
    );
  }

  /**
   * Waits for the completion and its outcome; `{done: false}` when they did not come in time (not
   * an error). Tells the caller how long it has waited every {@link PROGRESS_EVERY_MS} when it
   * asked for progress.
   */
  private async waitFor(id: string, timeoutS: number, extra: Extra): Promise<Record<string, unknown>> {
    const { sessionId, loopId } = this.connection;
    const client = this.connection.client();
    // Fails fast, where the stream would retry until the timeout: an unreachable server is an error, not "not yet".
    await client.getLoop(sessionId, loopId);
    const progressToken = extra._meta?.progressToken;
    const began = Date.now();
    const progress =
      progressToken === undefined
        ? undefined
        : setInterval(() => {
            const waited = Math.round((Date.now() - began) / 1000);
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress: waited, total: timeoutS, message: `waiting for ${id}: ${waited} s of ${timeoutS} s` },
              })
              .catch(() => undefined);
          }, PROGRESS_EVERY_MS);
    try {
      const { notification: found } = await client.waitForCompletion(
        sessionId,
        loopId,
        { commandId: id },
        { timeoutMs: timeoutS * 1000, signal: extra.signal },
      );
      return found.outcome === null ? { done: false } : { done: true, notification: found };
    } catch (error) {
      if (error instanceof TimeoutError) return { done: false };
      throw error;
    } finally {
      clearInterval(progress);
    }
  }

  /** Runs a tool; a failure becomes a tool result with `isError` and one line, never a crash. */
  private async answer(work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
    try {
      return result(await work());
    } catch (error) {
      let message: string;
      try {
        message = this.connection.failure(error).message;
      } catch {
        message = error instanceof Error ? error.message : String(error);
      }
      return { isError: true, content: [{ type: 'text', text: message.split('\n')[0]! }] };
    }
  }
}
