import { BAD_ANSWER_CODES, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES } from 'process-notifications-client';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// The Python client's codes of a bad answer and its default bounds (issue 45), read by Debian's
// Python: docs/client.md and docs/python.md state them once for both clients, so they must agree.
function python(): Record<string, unknown> {
  const script = [
    'import json',
    'from process_notifications.errors import BAD_ANSWER_CODES',
    'from process_notifications._base import DEFAULT_MAX_ANSWER_BYTES',
    'from process_notifications.sse import DEFAULT_MAX_EVENT_BYTES',
    'print(json.dumps({"BAD_ANSWER_CODES": BAD_ANSWER_CODES, "DEFAULT_MAX_ANSWER_BYTES": DEFAULT_MAX_ANSWER_BYTES, "DEFAULT_MAX_EVENT_BYTES": DEFAULT_MAX_EVENT_BYTES}))',
  ].join('\n');
  const output = execFileSync('/usr/bin/python3', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: resolve(repo, 'libs/process-notifications-py/src') },
  });
  return JSON.parse(output) as Record<string, unknown>;
}

describe("the Python client's bad answers and bounds", () => {
  it("are the TypeScript client's", () => {
    expect(python()).toEqual({ BAD_ANSWER_CODES, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES });
  });
});
