import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its plugin is the module itself, or its `default` under ESM interop.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// Spectral's operation-operationId-valid-in-url: the characters a URL may carry unescaped.
const URL_SAFE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]*$/;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Every object of `node` with the JSON path to it, examples' values not entered (they are data). */
function* walk(node: unknown, path: string): Generator<[Json, string]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* walk(item, `${path}[${i}]`);
    return;
  }
  if (!isObject(node)) return;
  yield [node, path];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'value' || key === 'default' || key === 'enum') continue;
    yield* walk(value, `${path}.${key}`);
  }
}

/** Points the document's own `#/...` references at the copy registered under `id`. */
function rebased(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rebased(item, id));
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${id}${value}` : rebased(value, id),
    ]),
  );
}

// Whether `value` is of the JSON schema `type`.
function ofType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return true;
  }
}

/**
 * The rules of Spectral's `spectral:oas` ruleset that apply to an OpenAPI 3.0 document, as
 * Spectral states them, checked without Spectral (its CLI pulls a dependency that reports
 * installs to a third party): the recommended ones (info-contact, info-description,
 * operation-description, -operationId, -operationId-unique, -operationId-valid-in-url,
 * -parameters, -success-response, -tags, -tag-defined, openapi-tags, openapi-tags-uniqueness,
 * path-params, path-declarations-must-exist, path-keys-no-trailing-slash,
 * path-not-include-query, no-$ref-siblings, typed-enum, duplicated-entry-in-enum, array-items,
 * no-eval-in-markdown, no-script-tags-in-markdown, oas3-api-servers, oas3-server-trailing-slash,
 * oas3-server-not-example.com, oas3-operation-security-defined,
 * oas3-examples-value-or-externalValue, oas3-valid-media-example, oas3-valid-schema-example,
 * oas3-unused-component) and info-license and tag-description besides. oas3-schema (the
 * document's structure) is Redocly's `struct` rule, run by the same test file.
 * @returns one line per finding, `rule at path: what`; none when the document passes
 */
export function spectralOasFindings(document: Json): string[] {
  const findings: string[] = [];
  const find = (rule: string, path: string, what: string): void => void findings.push(`${rule} at ${path}: ${what}`);
  const info = (document.info ?? {}) as Json;
  if (!isObject(info.contact) || Object.keys(info.contact).length === 0) find('info-contact', 'info', 'no contact');
  if (typeof info.description !== 'string' || info.description === '') find('info-description', 'info', 'no description');
  if (!isObject(info.license) || typeof info.license.name !== 'string') find('info-license', 'info', 'no license');

  const tags = (document.tags ?? []) as Json[];
  if (tags.length === 0) find('openapi-tags', 'tags', 'no tags declared');
  const tagNames = tags.map((tag) => tag.name as string);
  for (const name of tagNames.filter((name, i) => tagNames.indexOf(name) !== i)) find('openapi-tags-uniqueness', 'tags', `${name} twice`);
  for (const tag of tags)
    if (typeof tag.description !== 'string' || tag.description === '') find('tag-description', `tags.${String(tag.name)}`, 'none');

  const servers = (document.servers ?? []) as Json[];
  if (servers.length === 0) find('oas3-api-servers', 'servers', 'none');
  for (const server of servers) {
    const url = String(server.url ?? '');
    if (url === '') find('oas3-api-servers', 'servers', 'a server without url');
    if (/.\/$/.test(url)) find('oas3-server-trailing-slash', 'servers', url);
    if (/^https?:\/\/example\.com/.test(url)) find('oas3-server-not-example.com', 'servers', url);
  }

  const components = (document.components ?? {}) as Json;
  const schemes = Object.keys((components.securitySchemes ?? {}) as Json);
  const securityOf = (requirements: unknown, path: string): void => {
    for (const requirement of (requirements ?? []) as Json[])
      for (const name of Object.keys(requirement))
        if (!schemes.includes(name)) find('oas3-operation-security-defined', path, `scheme ${name} not declared`);
  };
  securityOf(document.security, 'security');

  const operationIds = new Map<string, string>();
  const normalisedPaths = new Map<string, string>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    if (path.length > 1 && path.endsWith('/')) find('path-keys-no-trailing-slash', path, 'ends with /');
    if (path.includes('?')) find('path-not-include-query', path, 'has a query');
    if (path.includes('{}')) find('path-declarations-must-exist', path, 'an empty {}');
    const same = path.replace(/\{[^}]+\}/g, '{}');
    if (normalisedPaths.has(same)) find('path-params', path, `equivalent to ${normalisedPaths.get(same)}`);
    normalisedPaths.set(same, path);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const shared = (item.parameters ?? []) as Json[];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const where = `${method} ${path}`;
      if (typeof operation.description !== 'string' || operation.description === '') find('operation-description', where, 'none');
      const id = operation.operationId;
      if (typeof id !== 'string' || id === '') find('operation-operationId', where, 'none');
      else {
        if (operationIds.has(id)) find('operation-operationId-unique', where, `${id} also names ${operationIds.get(id)}`);
        operationIds.set(id, where);
        if (!URL_SAFE.test(id)) find('operation-operationId-valid-in-url', where, id);
      }
      const operationTags = (operation.tags ?? []) as string[];
      if (operationTags.length === 0) find('operation-tags', where, 'none');
      for (const tag of operationTags) if (!tagNames.includes(tag)) find('operation-tag-defined', where, `${tag} not declared`);
      const statuses = Object.keys((operation.responses ?? {}) as Json);
      if (!statuses.some((status) => /^[23]/.test(status))) find('operation-success-response', where, 'no 2xx or 3xx');
      const parameters = [...shared, ...((operation.parameters ?? []) as Json[])];
      const keys = parameters.map((parameter) => `${String(parameter.in)}:${String(parameter.name)}`);
      for (const key of keys.filter((key, i) => keys.indexOf(key) !== i)) find('operation-parameters', where, `${key} twice`);
      const inPath = parameters.filter((parameter) => parameter.in === 'path');
      for (const parameter of inPath) {
        if (!templated.includes(parameter.name as string)) find('path-params', where, `${String(parameter.name)} not in the path`);
        if (parameter.required !== true) find('path-params', where, `${String(parameter.name)} not required`);
      }
      for (const name of templated)
        if (!inPath.some((parameter) => parameter.name === name)) find('path-params', where, `{${name}} not defined`);
      securityOf(operation.security, where);
    }
  }

  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components });
  const validates = (schema: unknown, value: unknown): string | undefined => {
    const validate = ajv.compile(rebased(schema, 'doc') as Json);
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };
  const references = new Set<string>();
  for (const [node, path] of walk(document, '$')) {
    if (typeof node.$ref === 'string') {
      references.add(node.$ref);
      const siblings = Object.keys(node).filter((key) => key !== '$ref');
      if (siblings.length > 0) find('no-$ref-siblings', path, siblings.join(', '));
    }
    for (const key of ['description', 'title'])
      if (typeof node[key] === 'string') {
        if (/eval\(/i.test(node[key])) find('no-eval-in-markdown', `${path}.${key}`, 'eval(');
        if (/<script/i.test(node[key])) find('no-script-tags-in-markdown', `${path}.${key}`, '<script');
      }
    if (Array.isArray(node.enum)) {
      const values = node.enum as unknown[];
      for (const value of values.filter((value, i) => values.findIndex((other) => Object.is(other, value)) !== i))
        find('duplicated-entry-in-enum', path, JSON.stringify(value));
      if (node.type !== undefined)
        for (const value of values)
          if (!ofType(value, node.type) && !(value === null && node.nullable === true))
            find('typed-enum', path, `${JSON.stringify(value)} is not ${String(node.type)}`);
    }
    if (node.type === 'array' && node.items === undefined) find('array-items', path, 'no items');
    if (isObject(node.examples) && isObject(node.schema))
      for (const [name, example] of Object.entries(node.examples)) {
        if (!isObject(example)) continue;
        if ('value' in example === 'externalValue' in example)
          find('oas3-examples-value-or-externalValue', `${path}.examples.${name}`, 'needs value or externalValue, not both');
        const error = 'value' in example ? validates(node.schema, example.value) : undefined;
        if (error !== undefined) find('oas3-valid-media-example', `${path}.examples.${name}`, error);
      }
    if ('example' in node && isObject(node.schema)) {
      const error = validates(node.schema, node.example);
      if (error !== undefined) find('oas3-valid-media-example', `${path}.example`, error);
    }
    // A schema's own example (a media type's or parameter's is the one above).
    if ('example' in node && !isObject(node.schema) && !('in' in node) && (node.type !== undefined || node.properties !== undefined)) {
      const { example, ...schema } = node;
      const error = validates(schema, example);
      if (error !== undefined) find('oas3-valid-schema-example', `${path}.example`, error);
    }
  }
  for (const [kind, entries] of Object.entries(components))
    if (kind !== 'securitySchemes')
      for (const name of Object.keys(entries as Json))
        if (!references.has(`#/components/${kind}/${name}`))
          find('oas3-unused-component', `components.${kind}.${name}`, 'never referenced');
  return findings;
}
