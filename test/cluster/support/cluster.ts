import { Agent } from 'node:http';
import { DataSource } from 'typeorm';
import { jsonRequest, type HttpAnswer } from '../../support/http-client.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../../support/server-process.js';
import { notification } from '../../support/test-app.js';

/** A session with one native loop, and its token. */
export interface ClusterSession {
  readonly sessionId: string;
  readonly token: string;
  readonly loopId: string;
}

/** A notification and the final answer a retrying client got for it. */
export interface Delivery {
  readonly sessionId: string;
  readonly commandId: string;
  readonly answer: HttpAnswer;
}

// A client retries a 503 or a broken connection with the same body, on another node.
const RETRIED = (answer: HttpAnswer): boolean => answer.error !== undefined || answer.status === 503;

/**
 * Real server processes (`dist/src/main.js`) on one PostgreSQL schema, and a client that sends
 * to random nodes and retries with the same body, as a supervisor behind a load balancer does.
 */
export class Cluster {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly nodes: ServerProcess[] = [];
  // Nodes that just failed to answer, until when the client leaves them out (a load balancer's
  // health check does the same).
  private readonly down = new Map<ServerProcess, number>();
  private stopped = false;
  private constructor(
    readonly databaseUrl: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts `count` nodes; the first alone, so that it runs the migrations. */
  static async start(count: number, databaseUrl: string, env: Record<string, string> = {}): Promise<Cluster> {
    const cluster = new Cluster(databaseUrl, env);
    await cluster.addNode();
    await Promise.all(Array.from({ length: count - 1 }, () => cluster.addNode()));
    return cluster;
  }

  /**
   * Starts one more node; `env` adds to (or overrides) the cluster's, e.g. another database
   * route; `spawn` says how to run it (see {@link ServerProcess.start}), e.g. in a network namespace.
   */
  async addNode(env: Record<string, string> = {}, spawn: Parameters<typeof ServerProcess.start>[1] = {}): Promise<ServerProcess> {
    const node = await ServerProcess.start(
      {
        PN_DATABASE_URL: this.databaseUrl,
        PN_LOOP_CAPACITY: '1000000',
        PN_LOG_LEVEL: 'warn',
        ...this.env,
        ...env,
      },
      spawn,
    );
    this.nodes.push(node);
    return node;
  }

  /** A random node; one that just failed to answer only when every node did. */
  any(): ServerProcess {
    const now = Date.now();
    const up = this.nodes.filter((node) => (this.down.get(node) ?? 0) <= now);
    const from = up.length > 0 ? up : this.nodes;
    return from[Math.floor(Math.random() * from.length)]!;
  }

  async call(node: ServerProcess, method: string, path: string, token: string | undefined, body?: unknown): Promise<HttpAnswer> {
    // A client gives up on a node that does not answer (frozen, say) and retries elsewhere.
    const answer = await jsonRequest(this.agent, `${node.url}${path}`, method, token, body, 5_000);
    if (answer.error !== undefined) this.down.set(node, Date.now() + 3_000);
    return answer;
  }

  /** Opens a session (through `via`) with one loop (through a random node). */
  async openSession(via: ServerProcess = this.any(), loopVia?: ServerProcess): Promise<ClusterSession> {
    const created = await this.call(via, 'POST', '/v1/sessions', SERVER_ADMIN_TOKEN);
    const { session_id: sessionId, token } = created.body as { session_id: string; token: string };
    const loop = await this.retrying(() => this.call(loopVia ?? this.any(), 'POST', `/v1/sessions/${sessionId}/loops`, token));
    if (loop.status !== 201) throw new Error(`opening a loop answered ${JSON.stringify(loop)}`);
    return { sessionId, token, loopId: (loop.body as { loop_id: string }).loop_id };
  }

  /** Sends a new notification for the session to random nodes until a final answer. */
  async deliver(session: ClusterSession, via?: () => ServerProcess): Promise<Delivery> {
    const n = notification(session.sessionId, session.loopId);
    const answer = await this.retrying(() =>
      this.call((via ?? (() => this.any()))(), 'POST', `/v1/sessions/${session.sessionId}/process-completions`, session.token, n),
    );
    return { sessionId: session.sessionId, commandId: n.command_id as string, answer };
  }

  /** Repeats `attempt` on 503 and broken connections, for at most 60 s. */
  async retrying(attempt: () => Promise<HttpAnswer>): Promise<HttpAnswer> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (this.stopped) throw new Error('the cluster was stopped');
      const answer = await attempt();
      if (!RETRIED(answer) || (answer.status === 503 && (answer.body as { code?: string }).code === 'delivery_stopped')) return answer;
      if (Date.now() > deadline) throw new Error(`no final answer within 60 s; last: ${JSON.stringify(answer)}`);
      // The client's back-off (a supervisor honours Retry-After; shorter here to keep tests short).
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The node process whose node id the database names as the session's owner, if alive. */
  async ownerOf(db: DataSource, sessionId: string): Promise<ServerProcess | undefined> {
    const [row] = (await db.query(
      'SELECT n.url FROM pn_session_leases l JOIN pn_nodes n ON n.node_id = l.owner_node WHERE l.session_id = $1 AND n.expires_at > now()',
      [sessionId],
    )) as Array<{ url: string }>;
    return this.nodes.find((node) => node.url === row?.url);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.agent.destroy();
    for (const node of this.nodes) await node.stop('SIGKILL');
  }
}

/** A database connection of the test's own, in the cluster's schema. */
export function connectSchema(databaseUrl: string): Promise<DataSource> {
  return new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 2 }).initialize();
}
