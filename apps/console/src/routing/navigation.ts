import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type ConsoleRoute } from './console-route.js';

// pushState fires no event of its own: the console tells its listeners with this one.
const NAVIGATED = 'pn-console:navigated';

/** Goes to `href` (a console address) through the history API, without a reload. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATED));
}

const currentRoute = (): ConsoleRoute => parseRoute(location.pathname, location.search);

/** The view the address bar names, kept current through links, back and forward. */
export function useRoute(): ConsoleRoute {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = (): void => setRoute(currentRoute());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return route;
}
