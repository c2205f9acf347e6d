import { MAX_BODY_BYTES, MAX_DELIVERY_BATCH } from 'process-notifications-contract';
import { BadAnswerError } from './bad-answer.error.js';
import { DeliveryBatcher, type DeliveryRoutes, type Exchanged } from './delivery-batcher.js';

// The batcher against scripted routes: which requests it sends, and what each caller is told.

function exchanged(status: number, body: unknown, headers: Record<string, string> = {}): Exchanged {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { answer: { status, header: (name) => lower.get(name.toLowerCase()) ?? null, text: async () => text }, text };
}

const delivery = (commandId: string) => ({ disposition: 'accepted', command_id: commandId, sequence: 1, appended: true });
const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const bodyOf = (i: number, pad = '') => JSON.stringify({ command_id: idOf(i), process_handle: `job${pad}` });
const idsIn = (batchBody: string) =>
  (JSON.parse(batchBody) as { notifications: Array<{ command_id: string }> }).notifications.map((n) => n.command_id);

/** Routes whose answers the test gives: `batch` answers each batch with `onBatch`, `one` with 202. */
function scripted(onBatch: (ids: string[]) => Promise<Exchanged> | Exchanged) {
  const sent: string[] = [];
  let unsupported = 0;
  const routes: DeliveryRoutes = {
    one: async (body) => {
      const { command_id } = JSON.parse(body) as { command_id: string };
      sent.push(`one ${command_id}`);
      return exchanged(202, delivery(command_id));
    },
    batch: async (body) => {
      const ids = idsIn(body);
      sent.push(`batch ${ids.length}`);
      return onBatch(ids);
    },
    unsupported: () => void unsupported++,
    batchSupported: () => unsupported === 0,
  };
  let idle = 0;
  const batcher = new DeliveryBatcher(routes, 'http://server/batch', () => void idle++);
  return { batcher, sent, unsupported: () => unsupported, idle: () => idle };
}

const results = (ids: string[], each: (id: string, i: number) => unknown = (id) => ({ status: 202, headers: {}, body: delivery(id) })) =>
  exchanged(200, { results: ids.map(each) });

async function settle(promises: Promise<Exchanged>[]) {
  return Promise.all(
    promises.map((p) =>
      p.then(
        async ({ answer, text }) => ({
          status: answer.status,
          retryAfter: answer.header('Retry-After'),
          body: JSON.parse(text) as unknown,
        }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
}

describe('DeliveryBatcher', () => {
  const escaped: unknown[] = [];
  const onEscape = (error: unknown): void => void escaped.push(error);
  beforeAll(() => process.on('unhandledRejection', onEscape));
  afterAll(() => process.off('unhandledRejection', onEscape));
  afterEach(async () => {
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
  });

  it('sends the attempts of one turn as one batch and gives each its own result, headers read in any case', async () => {
    const { batcher, sent, idle } = scripted((ids) =>
      results(ids, (id, i) =>
        i === 1
          ? { status: 503, headers: { 'Retry-After': '3' }, body: { code: 'journal_unavailable' } }
          : { status: 202, headers: {}, body: delivery(id) },
      ),
    );
    const answers = await settle([0, 1, 2].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    expect(sent).toEqual(['batch 3']);
    expect(answers).toEqual([
      { status: 202, retryAfter: null, body: delivery(idOf(0)) },
      { status: 503, retryAfter: '3', body: { code: 'journal_unavailable' } },
      { status: 202, retryAfter: null, body: delivery(idOf(2)) },
    ]);
    expect(idle()).toBe(1);
  });

  it('sends an attempt alone in its turn on the single route', async () => {
    const { batcher, sent } = scripted((ids) => results(ids));
    await batcher.exchange(bodyOf(0), idOf(0));
    expect(sent).toEqual([`one ${idOf(0)}`]);
  });

  it('gathers what comes while a request is on its way for the next one', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { batcher, sent } = scripted(async (ids) => {
      if (sent.length === 1) await held;
      return results(ids);
    });
    const first = [0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i)));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map((i) => batcher.exchange(bodyOf(i), idOf(i)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual(['batch 2']);
    release();
    await Promise.all([...first, ...later]);
    expect(sent).toEqual(['batch 2', 'batch 3']);
  });

  it(`keeps each batch within ${MAX_BODY_BYTES} bytes`, async () => {
    const { batcher, sent } = scripted((ids) => results(ids));
    const pad = 'x'.repeat(1000);
    const bytes = bodyOf(0, pad).length + 1;
    const fit = Math.floor((MAX_BODY_BYTES - 20) / bytes);
    await Promise.all(Array.from({ length: fit + 3 }, (_, i) => batcher.exchange(bodyOf(i, pad), idOf(i))));
    expect(sent).toEqual([`batch ${fit}`, 'batch 3']);
  });

  it('gives every attempt an answer to the whole request (401, 503, 404 session_not_found), without sending again', async () => {
    for (const whole of [
      exchanged(401, { code: 'unauthorized' }),
      exchanged(503, { code: 'owner_unavailable' }, { 'retry-after': '2' }),
      exchanged(404, { code: 'session_not_found' }),
    ]) {
      const { batcher, sent, unsupported } = scripted(() => whole);
      const answers = await Promise.all([0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
      expect(answers).toEqual([whole, whole]);
      expect(sent).toEqual(['batch 2']);
      expect(unsupported()).toBe(0);
    }
  });

  it.each([400, 413, 415])(
    'sends each attempt again alone when the whole batch is answered %i (one notification may have caused it)',
    async (status) => {
      const { batcher, sent, unsupported } = scripted(() => exchanged(status, { code: 'invalid_json' }));
      const answers = await settle([0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
      expect(sent).toEqual(['batch 2', `one ${idOf(0)}`, `one ${idOf(1)}`]);
      expect(answers.map((answer) => (answer as { status: number }).status)).toEqual([202, 202]);
      expect(unsupported()).toBe(0);
    },
  );

  it('sends each attempt again alone when the batch answer is past maxAnswerBytes', async () => {
    const { batcher, sent } = scripted(() => {
      throw BadAnswerError.answerTooLarge('http://server/batch', 10);
    });
    await Promise.all([0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    expect(sent).toEqual(['batch 2', `one ${idOf(0)}`, `one ${idOf(1)}`]);
  });

  it.each([404, 405])('takes a %i of the batch route as no such route: these attempts and all later ones go alone', async (status) => {
    const { batcher, sent, unsupported } = scripted(() => exchanged(status, 'no such route'));
    await Promise.all([0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    await Promise.all([2, 3].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    expect(sent).toEqual(['batch 2', ...[0, 1, 2, 3].map((i) => `one ${idOf(i)}`)]);
    expect(unsupported()).toBe(1);
  });

  it('sends alone what gathered while the batch that found the route missing was on its way', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { batcher, sent } = scripted(async () => {
      await held;
      return exchanged(404, 'no such route');
    });
    const first = [0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i)));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3].map((i) => batcher.exchange(bodyOf(i), idOf(i)));
    release();
    await Promise.all([...first, ...later]);
    expect(sent).toEqual(['batch 2', ...[0, 1, 2, 3].map((i) => `one ${idOf(i)}`)]);
  });

  it('is idle once a full batch, sent at once, settled before its turn came', async () => {
    const { batcher, idle } = scripted((ids) => results(ids));
    await Promise.all(Array.from({ length: MAX_DELIVERY_BATCH }, (_, i) => batcher.exchange(bodyOf(i), idOf(i))));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle()).toBe(1);
  });

  it('rejects every attempt with the failure of the request itself', async () => {
    const failure = new Error('connection reset');
    const { batcher } = scripted(() => Promise.reject(failure));
    const answers = await settle([0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    expect(answers).toEqual([{ error: failure }, { error: failure }]);
  });

  it('rejects only the attempt whose result cannot be read back (nested past the stack) or names another notification', async () => {
    const { batcher } = scripted((ids) => ({
      answer: { status: 200, header: () => null, text: async () => '' },
      text: nestedResults(ids),
    }));
    const answers = await settle([0, 1, 2, 3].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    expect(answers[0]).toMatchObject({ status: 202 });
    expect((answers[1] as { error: unknown }).error).toBeInstanceOf(BadAnswerError);
    expect((answers[2] as { error: unknown }).error).toBeInstanceOf(BadAnswerError);
    expect(answers[3]).toMatchObject({ status: 202 });
  });

  it.each([
    [
      'results of another length',
      (ids: string[]) => JSON.stringify({ results: ids.slice(1).map((id) => ({ status: 202, headers: {}, body: delivery(id) })) }),
    ],
    [
      'a status out of range',
      (ids: string[]) => JSON.stringify({ results: ids.map((id) => ({ status: 99, headers: {}, body: delivery(id) })) }),
    ],
    [
      'headers that are not an object',
      (ids: string[]) => JSON.stringify({ results: ids.map((id) => ({ status: 202, headers: [], body: delivery(id) })) }),
    ],
    ['no results', () => '{}'],
    ['null', () => 'null'],
    ['not JSON', () => '{"results": ['],
  ])('rejects every attempt of a batch answered with %s as answer_not_json', async (_name, body) => {
    const { batcher } = scripted((ids) => exchanged(200, body(ids)));
    const answers = await settle([0, 1].map((i) => batcher.exchange(bodyOf(i), idOf(i))));
    for (const answer of answers)
      expect((answer as { error: unknown }).error).toMatchObject({ name: 'BadAnswerError', code: 'answer_not_json' });
  });
});

// A batch answer for four attempts: the first's delivery, a result whose body is nested past
// what JSON.stringify can write back (JSON.parse reads it), another notification's delivery, and
// the fourth's delivery naming its id in upper case.
function nestedResults(ids: string[]): string {
  const nested = '{"deep":'.repeat(20_000) + '{}' + '}'.repeat(20_000);
  const result = (id: string) => JSON.stringify({ status: 202, headers: {}, body: delivery(id) });
  return `{"results":[${result(ids[0]!)},{"status":400,"headers":{},"body":${nested}},${result(idOf(99))},${result(ids[3]!.toUpperCase())}]}`;
}
