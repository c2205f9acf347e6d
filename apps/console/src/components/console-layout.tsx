import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Identity } from '../auth/identity.js';
import { routeHref, type ConsoleRoute } from '../routing/console-route.js';
import { navigate } from '../routing/navigation.js';
import { IdText } from './id-text.js';
import { Link } from './link.js';

const SECTIONS = [
  { label: 'Sessions', route: { view: 'sessions' }, views: ['sessions', 'session'] },
  { label: 'Loops', route: { view: 'loops', filter: 'all' }, views: ['loops', 'loop'] },
  { label: 'Nodes', route: { view: 'nodes' }, views: ['nodes'] },
  { label: 'Refusals', route: { view: 'refusals' }, views: ['refusals'] },
] as const satisfies readonly { label: string; route: ConsoleRoute; views: readonly ConsoleRoute['view'][] }[];

/**
 * The frame of every view: the links to the others (for a session token first its own session's;
 * the four lists are marked as needing the admin token), the search by command id, who is signed
 * in, `Sign out`.
 */
export function ConsoleLayout(props: { route: ConsoleRoute; identity: Identity; onSignOut: () => void; children: ComponentChildren }) {
  const [commandId, setCommandId] = useState(props.route.view === 'notification' ? props.route.commandId : '');
  useEffect(() => {
    if (props.route.view === 'notification') setCommandId(props.route.commandId);
  }, [props.route]);
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);
  // After a move to another view, focus goes to its heading, so keyboard and screen-reader users start there.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [routeHref(props.route)]);
  const search = (event: Event): void => {
    event.preventDefault();
    const id = commandId.trim();
    if (id) navigate(routeHref({ view: 'notification', commandId: id }));
  };
  return (
    <>
      <header class="top">
        <p class="brand">Process notifications</p>
        <nav aria-label="Views">
          <ul>
            {props.identity.kind === 'session' && props.identity.session_id && (
              <li>
                <Link
                  href={routeHref({ view: 'session', sessionId: props.identity.session_id })}
                  current={props.route.view === 'session' || props.route.view === 'loop'}
                >
                  Your session
                </Link>
              </li>
            )}
            {/* Every view links to the four lists (spec section 12.2); for a session token they are
                marked as the admin token's, and each says so at its address. */}
            {SECTIONS.map((section) => (
              <li key={section.label} class={props.identity.kind === 'admin' ? undefined : 'admin-only'}>
                <Link
                  href={routeHref(section.route)}
                  current={(section.views as readonly string[]).includes(props.route.view)}
                  title={props.identity.kind === 'admin' ? undefined : 'Needs the admin token'}
                >
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <form role="search" class="search" onSubmit={search}>
          <label for="command-id-search">Command id</label>
          <input
            id="command-id-search"
            name="command_id"
            type="search"
            size={36}
            autocomplete="off"
            spellcheck={false}
            required
            value={commandId}
            onInput={(event) => setCommandId(event.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
        <div class="who">
          <p>
            {props.identity.kind === 'admin' ? (
              'Signed in with the admin token'
            ) : (
              <>
                Signed in for session <IdText id={props.identity.session_id} />
              </>
            )}
          </p>
          <button type="button" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main ref={main}>{props.children}</main>
    </>
  );
}
