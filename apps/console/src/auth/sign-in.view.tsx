import { useState } from 'preact/hooks';
import { ProcessNotificationsClient } from 'process-notifications-client';
import { problemText } from '../components/problem-message.js';
import type { Identity } from './identity.js';

/**
 * The sign-in form: a token is tried with `GET /v1/whoami` before it is kept. A wrong one shows
 * the problem's `detail` and nothing else.
 */
export function SignInView(props: { onSignedIn: (token: string, identity: Identity) => void; notice?: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const client = new ProcessNotificationsClient({
        baseUrl: location.origin,
        token: token.trim(),
        retry: { maxAttempts: 2, maxDelayMs: 1_000 },
      });
      const identity = await client.whoami();
      props.onSignedIn(token.trim(), identity);
    } catch (failure) {
      setError(problemText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Process notifications console</h1>
      <form onSubmit={submit} aria-busy={busy}>
        <p>
          <label for="token">Token</label>
          <input
            id="token"
            name="token"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            value={token}
            onInput={(event) => setToken(event.currentTarget.value)}
          />
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {busy && (
        <p role="status" class="loading">
          Signing in…
        </p>
      )}
      {error !== undefined && (
        <p role="alert" class="problem">
          {error}
        </p>
      )}
      {props.notice && error === undefined && <p class="notice">{props.notice}</p>}
    </main>
  );
}
