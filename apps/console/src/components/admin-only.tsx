import type { Identity } from '../auth/identity.js';
import { routeHref } from '../routing/console-route.js';
import { Link } from './link.js';

/** What an admin-only view says to a session token (spec section 12.2). */
export function AdminOnly(props: { identity: Identity }) {
  return (
    <div class="notice">
      <p>This view needs the admin token: a session token shows its own session only.</p>
      {props.identity.session_id && (
        <p>
          Your session:{' '}
          <Link href={routeHref({ view: 'session', sessionId: props.identity.session_id })}>
            <code class="id">{props.identity.session_id}</code>
          </Link>
        </p>
      )}
    </div>
  );
}
