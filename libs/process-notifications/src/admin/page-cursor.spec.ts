import { ValidationError } from '../errors/validation.error.js';
import { PageCursor } from './page-cursor.js';

const KEY = Buffer.from('a key all nodes share, 32 bytes!');
const POSITION = ['2026-12-03T10:00:00.000Z', '8a5d7c3e-1b2f-4c6d-9e8f-0a1b2c3d4e5f'] as const;

const refusedAsCursor = (decode: () => unknown): void => {
  let thrown: unknown;
  try {
    decode();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ValidationError);
  expect((thrown as ValidationError).field).toBe('cursor');
};

describe('PageCursor', () => {
  const sessions = new PageCursor('sessions', 1, KEY);

  it('gives back the position it sealed, and so does another instance with the same key (another node)', () => {
    const cursor = sessions.encode(POSITION);
    expect(sessions.decode(cursor)).toEqual([...POSITION]);
    expect(new PageCursor('sessions', 1, Buffer.from(KEY)).decode(cursor)).toEqual([...POSITION]);
  });

  it('refuses a position edited and encoded again, whatever seal it keeps, and one without its seal', () => {
    const cursor = sessions.encode(POSITION);
    const [text, seal] = cursor.split('.') as [string, string];
    const edited = Buffer.from(JSON.stringify(['sessions', '2026-12-03T10:00:00.000Z', 'ffffffff-ffff-4fff-bfff-ffffffffffff'])).toString(
      'base64url',
    );
    for (const forged of [`${edited}.${seal}`, edited, text, `${text}.`, `.${seal}`, `${text}.${seal}x`, `${text}.${seal.slice(1)}`]) {
      refusedAsCursor(() => sessions.decode(forged));
    }
  });

  it('refuses a cursor sealed under another key, and one of another list', () => {
    refusedAsCursor(() => sessions.decode(new PageCursor('sessions', 1, Buffer.from('another key')).encode(POSITION)));
    const loops = new PageCursor('loops', 2, KEY);
    refusedAsCursor(() => sessions.decode(loops.encode([...POSITION, '8a5d7c3e-1b2f-4c6d-9e8f-0a1b2c3d4e5f'])));
  });
});
