import { LOOP_FILTERS, parseRoute, routeHref, type ConsoleRoute } from './console-route.js';

const SESSION = '0b6f7c1e-8a5d-4f4e-9d52-2f7b0d9c1a11';
const LOOP = '6e1d9a4b-3c2f-4b8a-a1d7-5f0e2c9b8d33';

describe('console addresses', () => {
  it.each<ConsoleRoute>([
    { view: 'home' },
    { view: 'sessions' },
    { view: 'sessions', cursor: 'opaque/+=cursor' },
    { view: 'session', sessionId: SESSION },
    { view: 'loops', filter: 'all' },
    ...LOOP_FILTERS.map((filter): ConsoleRoute => ({ view: 'loops', filter })),
    { view: 'loops', filter: 'stale', olderThanS: 60, sessionId: SESSION, cursor: 'c1' },
    { view: 'loop', sessionId: SESSION, loopId: LOOP },
    { view: 'nodes' },
    { view: 'refusals' },
    { view: 'notification', commandId: 'not a uuid / but kept' },
  ])('reads back %j from its address', (route) => {
    const url = new URL(routeHref(route), 'http://console.test');
    expect(parseRoute(url.pathname, url.search)).toEqual(route);
  });

  it('knows no other address, and never a token in one', () => {
    expect(parseRoute('/console/sessions/a/b')).toEqual({ view: 'unknown', path: '/console/sessions/a/b' });
    expect(parseRoute('/elsewhere')).toEqual({ view: 'unknown', path: '/elsewhere' });
    expect(parseRoute('/console/notifications/%E0%A4%A')).toEqual({ view: 'unknown', path: '/console/notifications/%E0%A4%A' });
    expect(parseRoute('/console/loops', '?filter=bogus&older_than_s=0')).toEqual({ view: 'loops', filter: 'all' });
    expect(parseRoute('/console/', '?token=secret')).toEqual({ view: 'home' });
  });
});
