import type { ConsoleRoute } from '../routing/console-route.js';

/** An address under /console that names no view. */
export function UnknownView(props: { route: Extract<ConsoleRoute, { view: 'unknown' }> }) {
  return (
    <>
      <h1 tabIndex={-1}>No such view</h1>
      <p role="alert" class="problem">
        The console has no view at <code>{props.route.path}</code>. The links above lead to every view.
      </p>
    </>
  );
}
