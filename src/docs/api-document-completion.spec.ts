import type { OpenAPIObject } from '@nestjs/swagger';
import { completeApiDocument } from './api-document-completion.js';

const generated = (): OpenAPIObject => ({
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } },
        ],
        responses: { '200': { description: 'ok', headers: { 'Idempotent-Replayed': { schema: { type: 'string' } } } } },
        security: [{ bearer: [] }],
      },
    },
    '/healthz': { get: { responses: { '200': { description: 'ok' } } } },
  },
  components: {
    schemas: {
      Outcome: { type: 'object', properties: { kind: { type: 'string' } } },
      Thing: {
        type: 'object',
        properties: {
          outcome: { type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/Outcome' }], description: 'd' },
          cause: { type: 'string', nullable: true, enum: ['a', 'b'] },
          state: { type: 'string', enum: ['x'] },
          list: { type: 'array', items: { type: 'string', nullable: true, enum: ['y'] } },
        },
      },
    },
  },
});

describe('completeApiDocument', () => {
  const document = completeApiDocument(generated());
  const thing = document.components!.schemas!.Thing as { properties: Record<string, Record<string, unknown>> };

  it('lets a nullable reference accept null: anyOf the reference and null, no type beside it', () => {
    expect(thing.properties.outcome).toEqual({
      description: 'd',
      anyOf: [{ $ref: '#/components/schemas/Outcome' }, { type: 'object', nullable: true, enum: [null] }],
    });
  });

  it('lists null in a nullable enum (also in array items), and leaves a non-nullable one alone', () => {
    expect(thing.properties.cause!.enum).toEqual(['a', 'b', null]);
    expect((thing.properties.list!.items as { enum: unknown[] }).enum).toEqual(['y', null]);
    expect(thing.properties.state!.enum).toEqual(['x']);
  });

  it('gives path parameters an example, documents X-Request-Id beside the own headers, and marks an operation without security public', () => {
    const get = document.paths['/v1/things/{id}']!.get!;
    expect(get.parameters).toEqual([
      expect.objectContaining({ name: 'id', example: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
      expect.not.objectContaining({ example: expect.anything() }),
    ]);
    expect(Object.keys((get.responses['200'] as { headers: object }).headers)).toEqual(['X-Request-Id', 'Idempotent-Replayed']);
    expect(get.security).toEqual([{ bearer: [] }]);
    expect(document.paths['/healthz']!.get!.security).toEqual([]);
  });
});
