import { Agent, createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { notification } from '../support/test-app.js';
import { Cluster, type ClusterSession } from './support/cluster.js';
import { rawRequest } from '../support/raw-request.js';

// Issue 36, finding 1, played by an attacker against two real nodes on PostgreSQL: a request
// for a session the receiving node does not own is forwarded to the owner's PN_NODE_URL only,
// with a closed list of the client's headers, and only a closed list of the owner's headers comes
// back. The owner is reached through a recording proxy of the test's own (its PN_NODE_URL), which
// sees what crosses between the nodes and adds a cookie and a header of its own to every answer.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

/** The owner's front: records every request that reaches it and taints every answer. */
class RecordingProxy {
  readonly seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
  target = 0;
  private readonly agent = new Agent({ keepAlive: true });
  private constructor(private readonly server: Server) {}

  static async start(): Promise<RecordingProxy> {
    const proxy: RecordingProxy = new RecordingProxy(
      createHttpServer((req, res) => {
        proxy.seen.push({ method: req.method!, url: req.url!, headers: req.headers });
        const upstream = httpRequest(
          { hostname: '127.0.0.1', port: proxy.target, method: req.method, path: req.url, headers: req.headers, agent: proxy.agent },
          (answer) => {
            res.writeHead(answer.statusCode!, { ...answer.headers, 'set-cookie': 'pn-owner-cookie=1', 'x-owner-only': 'yes' });
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      }),
    );
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A TCP listener of the test's own: what an attacker would point a forwarded request at. */
async function listenTarget(): Promise<{ port: number; connections: Socket[]; server: TcpServer }> {
  const connections: Socket[] = [];
  const server = createTcpServer((socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, connections, server };
}

const linesOf = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describeOnPostgres('forwarding between two nodes, played by an attacker (issue 36)', () => {
  const schema = freshSchema();
  let cluster: Cluster | undefined;
  let proxy: RecordingProxy;
  let receiver: ServerProcess;
  let owner: ServerProcess;
  let session: ClusterSession;

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema.name}"`);
    proxy = await RecordingProxy.start();
    cluster = await Cluster.start(1, schema.databaseUrl, { PN_LOG_LEVEL: 'info' });
    receiver = cluster.nodes[0]!;
    owner = await cluster.addNode({ PN_NODE_URL: proxy.url });
    proxy.target = Number(new URL(owner.url).port);
    session = await cluster.openSession(owner, owner);
    // The owner is the node behind the proxy: the database names its URL.
    const [lease] = (await admin!.query(
      `SELECT n.url FROM "${schema.name}".pn_session_leases l JOIN "${schema.name}".pn_nodes n ON n.node_id = l.owner_node WHERE l.session_id = $1`,
      [session.sessionId],
    )) as Array<{ url: string }>;
    expect(lease?.url).toBe(proxy.url);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await proxy?.stop();
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema.name}" CASCADE`);
    await admin!.destroy();
  });

  it('sends nothing anywhere for an absolute-form request, and answers it 400 invalid_request_target, without a token, GET or POST', async () => {
    const target = await listenTarget();
    try {
      const before = proxy.seen.length;
      const pending = `/v1/sessions/${session.sessionId}/loops/${session.loopId}/process-notifications`;
      const attacks = [
        ['GET', `http://127.0.0.1:${target.port}${pending}`, undefined],
        ['POST', `http://127.0.0.1:${target.port}/v1/sessions/${session.sessionId}/process-completions`, '{}'],
      ] as const;
      for (const node of [receiver, owner]) {
        for (const [method, url, body] of attacks) {
          const answer = await rawRequest(node.url, method, url, body ? { 'content-type': 'application/json' } : {}, body);
          expect({ method, status: answer.status, type: answer.headers['content-type'] }).toEqual({
            method,
            status: 400,
            type: 'application/problem+json',
          });
          expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'invalid_request_target' });
          expect(answer.headers['set-cookie']).toBeUndefined();
        }
      }
      // Neither the attacker's listener nor the owner was ever contacted.
      expect(target.connections).toHaveLength(0);
      expect(proxy.seen.length).toBe(before);
    } finally {
      for (const socket of target.connections) socket.destroy();
      await new Promise((resolve) => target.server.close(resolve));
    }
  });

  it('sends the owner only the closed list of the client’s headers, and relays only the owner’s closed list back', async () => {
    const before = proxy.seen.length;
    const body = JSON.stringify(notification(session.sessionId, session.loopId));
    const answer = await rawRequest(
      receiver.url,
      'POST',
      `/v1/sessions/${session.sessionId}/process-completions`,
      {
        authorization: `Bearer ${session.token}`,
        'content-type': 'application/json',
        cookie: 'victim-session=secret',
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'evil.example',
        'x-request-id': 'client-chosen-id',
        'pn-forwarding-request-id': 'forged-node-id',
        'x-custom': 'anything',
      },
      body,
    );
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body)).toMatchObject({ disposition: 'accepted' });
    // What reached the owner: one request, the path as sent, the closed list of headers.
    const crossed = proxy.seen.slice(before);
    expect(crossed).toHaveLength(1);
    const [forwarded] = crossed;
    expect(forwarded!.url).toBe(`/v1/sessions/${session.sessionId}/process-completions`);
    const allowed = new Set([
      'host',
      'connection',
      'content-length',
      'authorization',
      'content-type',
      'pn-forwarded-by',
      'pn-forwarding-request-id',
      'traceparent',
      'tracestate',
    ]);
    expect(Object.keys(forwarded!.headers).filter((name) => !allowed.has(name))).toEqual([]);
    expect(forwarded!.headers['pn-forwarding-request-id']).not.toBe('forged-node-id');
    // The answer: the owner's status and body, none of the proxy's additions; this node's own
    // echo of the client's request id and the API's headers.
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-owner-only']).toBeUndefined();
    expect(answer.headers['x-request-id']).toBe('client-chosen-id');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');

    // The receiving node's line: its own id, the client's apart; the owner's line: its own id,
    // the receiving node's as forwarded_request_id, and the client's nowhere.
    const nodeId = forwarded!.headers['pn-forwarding-request-id'] as string;
    const [ownerLine] = await owner.waitForOutput(new RegExp(`\\{[^\\n]*"forwarded_request_id":"${nodeId}"[^\\n]*\\}`));
    const [receiverLine] = await receiver.waitForOutput(new RegExp(`\\{[^\\n]*"request_id":"${nodeId}"[^\\n]*\\}`));
    expect(JSON.parse(receiverLine)).toMatchObject({
      client_request_id: 'client-chosen-id',
      route: '/v1/sessions/:sid/process-completions',
    });
    expect(JSON.parse(ownerLine)).toMatchObject({ route: '/v1/sessions/:sid/process-completions', status: 202 });
    expect(JSON.parse(ownerLine).request_id).not.toBe(nodeId);
    for (const line of linesOf(owner.output)) {
      expect(line.request_id).not.toBe('client-chosen-id');
      expect(line.client_request_id).toBeUndefined();
    }
  });

  it('answers the admin token through either node alike (no header it needs is dropped)', async () => {
    const path = `/v1/sessions/${session.sessionId}/loops/${session.loopId}`;
    const direct = await rawRequest(owner.url, 'GET', path, { authorization: `Bearer ${SERVER_ADMIN_TOKEN}` });
    const viaReceiver = await rawRequest(receiver.url, 'GET', path, { authorization: `Bearer ${SERVER_ADMIN_TOKEN}` });
    expect([viaReceiver.status, JSON.parse(viaReceiver.body)]).toEqual([direct.status, JSON.parse(direct.body)]);
    const refused = await rawRequest(receiver.url, 'GET', path, {});
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
  });
});
