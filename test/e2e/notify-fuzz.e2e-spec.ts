import fc from 'fast-check';
import { PROCESS_STATES, TERMINAL_PAIRS, TERMINAL_REASONS } from 'process-notifications-contract';
import { bearer, createHttpTestApp, openSessionWithLoop, type HttpTestApp } from './support/http-test-app.js';

const FIELDS = ['command_id', 'session_id', 'loop_id', 'process_handle', 'state', 'reason'] as const;
const PAIRS = Object.entries(TERMINAL_PAIRS).flatMap(([state, reasons]) => reasons.map((reason) => ({ state, reason })));

describe('REST API v1: random bodies at the notify route', () => {
  let t: HttpTestApp;
  beforeAll(async () => {
    // Room for every accepted notification, so that a full pending set never answers 503.
    t = await createHttpTestApp({ loopCapacity: 10_000 });
  });
  afterAll(() => t.close());

  it('answers 2xx or a well-formed 4xx problem, and the journal grows only for accepted bodies', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const valid = fc
      .record({
        command_id: fc.uuid(),
        session_id: fc.constant(sessionId),
        loop_id: fc.constant(loopId),
        process_handle: fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/),
        pair: fc.constantFrom(...PAIRS),
      })
      .map(({ pair, ...fields }) => ({ ...fields, ...pair }));
    const value = fc.oneof(fc.jsonValue(), fc.constantFrom(...PROCESS_STATES, ...TERMINAL_REASONS), fc.uuid());
    const key = fc.oneof(fc.constantFrom(...FIELDS, '__proto__', 'constructor', 'prototype', 'command', 'env'), fc.string());
    const mutated = fc
      .tuple(
        valid,
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('set' as const), key, value }),
            fc.record({ op: fc.constant('delete' as const), key: fc.constantFrom(...FIELDS) }),
            fc.record({ op: fc.constant('upper' as const), key: fc.constantFrom('command_id', 'session_id', 'loop_id') }),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([base, mutations]) => {
        const body: Record<string, unknown> = { ...base };
        for (const mutation of mutations) {
          if (mutation.op === 'delete') delete body[mutation.key];
          else if (mutation.op === 'upper') body[mutation.key] = String(body[mutation.key]).toUpperCase();
          else Object.defineProperty(body, mutation.key, { value: mutation.value, enumerable: true, writable: true, configurable: true });
        }
        return JSON.stringify(body);
      });
    const body = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
      fc.dictionary(key, value).map((value) => JSON.stringify(value)),
      mutated,
      valid.map((value) => JSON.stringify(value)),
      fc.string(),
    );

    let journaled = 0;
    // Command ids (lower case) of the deliveries that succeeded so far.
    const delivered = new Set<string>();
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await t.http
          .post(`/v1/sessions/${sessionId}/process-completions`)
          .set(bearer(token))
          .set('Content-Type', 'application/json')
          .send(text);
        if (response.status >= 400) {
          expect(response.status).toBeLessThan(500);
          expect(response.headers['content-type']).toBe('application/problem+json');
          const problem = JSON.parse(response.text);
          expect(problem).toMatchObject({
            type: expect.any(String),
            title: expect.any(String),
            status: response.status,
            detail: expect.any(String),
            code: expect.any(String),
          });
          if (problem.code === 'invalid_field') expect(problem.field).toEqual(expect.any(String));
        } else {
          // §8: 202 accepted for the first delivery of a command_id, 200 duplicate for an identical retry.
          const commandId = String(JSON.parse(text).command_id).toLowerCase();
          const first = !delivered.has(commandId);
          expect({
            status: response.status,
            disposition: response.body.disposition,
            command_id: response.body.command_id,
            appended: response.body.appended,
          }).toEqual(
            first
              ? { status: 202, disposition: 'accepted', command_id: commandId, appended: true }
              : { status: 200, disposition: 'duplicate', command_id: commandId, appended: false },
          );
          delivered.add(commandId);
          if (first) journaled++;
        }
        const records = await t.service.readJournal(sessionId, 0, 1000);
        expect(records).toHaveLength(journaled);
      }),
      { numRuns: 200 },
    );
    // The generators do produce valid notifications, so the property is not vacuous.
    expect(journaled).toBeGreaterThan(0);
  });
});
