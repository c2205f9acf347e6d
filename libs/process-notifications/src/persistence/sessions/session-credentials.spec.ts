import { hashToken, SessionCredentials } from './session-credentials.js';

describe('SessionCredentials', () => {
  const A = 'a0000000-0000-4000-8000-000000000001';
  const B = 'b0000000-0000-4000-8000-000000000002';

  it('answers a held session by its token hash, and the old hash no more once another replaces it', () => {
    const credentials = new SessionCredentials();
    credentials.hold(A, hashToken('one'));
    credentials.hold(B, hashToken('two'));
    expect(credentials.sessionOf(hashToken('one'))).toBe(A);
    credentials.hold(A, hashToken('three'));
    expect(credentials.sessionOf(hashToken('one'))).toBeUndefined();
    expect(credentials.sessionOf(hashToken('three'))).toBe(A);
    expect(credentials.sessionOf(hashToken('two'))).toBe(B);
  });

  it('takes a rotation only for a session it holds; forgets on close, release and clear', () => {
    const credentials = new SessionCredentials();
    credentials.rotated(A, hashToken('not held'));
    expect(credentials.sessionOf(hashToken('not held'))).toBeUndefined();
    credentials.hold(A, hashToken('one'));
    credentials.rotated(A, hashToken('two'));
    expect(credentials.sessionOf(hashToken('one'))).toBeUndefined();
    expect(credentials.sessionOf(hashToken('two'))).toBe(A);
    credentials.forget(A);
    expect(credentials.sessionOf(hashToken('two'))).toBeUndefined();
    credentials.hold(B, hashToken('three'));
    credentials.hold(A, null);
    credentials.clear();
    expect(credentials.sessionOf(hashToken('three'))).toBeUndefined();
  });

  it('stores a token as its SHA-256, hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
