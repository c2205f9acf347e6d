import { routeHref } from '../routing/console-route.js';
import { IdText } from './id-text.js';
import { Link } from './link.js';

/** A session's id, linking to its view. */
export function SessionLink(props: { sessionId: string }) {
  return (
    <Link href={routeHref({ view: 'session', sessionId: props.sessionId })}>
      <IdText id={props.sessionId} />
    </Link>
  );
}

/** A loop's id, linking to its view. */
export function LoopLink(props: { sessionId: string; loopId: string }) {
  return (
    <Link href={routeHref({ view: 'loop', sessionId: props.sessionId, loopId: props.loopId })}>
      <IdText id={props.loopId} />
    </Link>
  );
}

/** A command id linking to the search for it (where it is, and its refusals). */
export function CommandLink(props: { commandId: string | null }) {
  if (!props.commandId) return <IdText id={null} />;
  return (
    <Link href={routeHref({ view: 'notification', commandId: props.commandId })}>
      <IdText id={props.commandId} />
    </Link>
  );
}
