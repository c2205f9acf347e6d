import type {
  HeadersObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponsesObject,
  SchemaObject,
} from '@nestjs/swagger';

// A path parameter's example: every one of them is a UUID (checked by UuidParamPipe).
const EXAMPLE_UUID = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';

// `null` alone. OpenAPI 3.0's `nullable` only widens a `type` beside it, so a nullable `$ref`
// (`allOf: [$ref]`) still rejects null: the alternative has to say null itself.
const NULL_ONLY: SchemaObject = { type: 'object', nullable: true, enum: [null] };

const REQUEST_ID_RESPONSE_HEADER: HeadersObject = {
  'X-Request-Id': {
    description:
      "The client's own X-Request-Id echoed when it sent a usable one (1 to 128 printable ASCII characters), else the server's id for this request.",
    required: true,
    schema: { type: 'string' },
  },
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function isSchema(schema: SchemaObject | ReferenceObject): schema is SchemaObject {
  return !('$ref' in schema);
}

// What a nullable property really answers: `null` is a value of the schema, not only of its type.
function nullableAsAnswered(schema: SchemaObject): SchemaObject | ReferenceObject {
  if (schema.nullable !== true) return schema;
  if (schema.enum !== undefined && !schema.enum.includes(null)) return { ...schema, enum: [...schema.enum, null] };
  const [only, ...others] = schema.allOf ?? [];
  if (only !== undefined && others.length === 0 && !isSchema(only)) {
    const { allOf: _allOf, nullable: _nullable, type: _type, ...rest } = schema;
    return { ...rest, anyOf: [only, NULL_ONLY] };
  }
  return schema;
}

function completeSchema(schema: SchemaObject | ReferenceObject): SchemaObject | ReferenceObject {
  if (!isSchema(schema)) return schema;
  const properties =
    schema.properties === undefined
      ? undefined
      : Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, completeSchema(property)]));
  const items = schema.items === undefined ? undefined : completeSchema(schema.items);
  return nullableAsAnswered({
    ...schema,
    ...(properties === undefined ? {} : { properties }),
    ...(items === undefined ? {} : { items }),
  });
}

function completeOperation(operation: OperationObject): OperationObject {
  const parameters = operation.parameters?.map((parameter) =>
    'in' in parameter && parameter.in === 'path' && parameter.example === undefined
      ? ({ ...parameter, example: EXAMPLE_UUID } satisfies ParameterObject)
      : parameter,
  );
  const responses: ResponsesObject = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response === undefined) continue;
    responses[status] = '$ref' in response ? response : { ...response, headers: { ...REQUEST_ID_RESPONSE_HEADER, ...response.headers } };
  }
  // A route without a bearer scheme (`@Public()`, the health check) needs no token: say so.
  return { ...operation, parameters, responses, security: operation.security ?? [] };
}

/**
 * Completes the document `@nestjs/swagger` generates with what its decorators cannot say, so
 * that every real answer validates against it: nullable enums and nullable references that
 * accept `null`, the `X-Request-Id` every answer carries, an example for every path
 * parameter, and an explicit empty `security` on the public routes.
 */
export function completeApiDocument(document: OpenAPIObject): OpenAPIObject {
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([key, value]) => [
          key,
          (METHODS as readonly string[]).includes(key) ? completeOperation(value as OperationObject) : value,
        ]),
      ),
    ]),
  );
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [name, completeSchema(schema)]),
  );
  return { ...document, paths, components: { ...document.components, schemas } };
}
