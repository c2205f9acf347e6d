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

  it.each<[string, string, ConsoleRoute]>([
    ['/CONSOLE/sessions', '', { view: 'sessions' }],
    ['/console//sessions/', '?cursor=', { view: 'sessions' }],
    ['/console/%73essions/%41b', '', { view: 'session', sessionId: 'Ab' }],
    ['/console/Sessions', '', { view: 'unknown', path: '/console/Sessions' }],
    ['/consoles', '', { view: 'unknown', path: '/consoles' }],
    ['/console/sessions/a/loops', '', { view: 'unknown', path: '/console/sessions/a/loops' }],
    ['/console/sessions/a/loops/b/c', '', { view: 'unknown', path: '/console/sessions/a/loops/b/c' }],
    ['/console/sessions/a/other/b', '', { view: 'unknown', path: '/console/sessions/a/other/b' }],
    ['/console/loops/a', '', { view: 'unknown', path: '/console/loops/a' }],
    ['/console/nodes/a', '', { view: 'unknown', path: '/console/nodes/a' }],
    ['/console/refusals/a', '', { view: 'unknown', path: '/console/refusals/a' }],
    ['/console/notifications', '', { view: 'unknown', path: '/console/notifications' }],
    ['/console/notifications/a/b', '', { view: 'unknown', path: '/console/notifications/a/b' }],
    ['/console/loops', '?older_than_s=1.5&session_id=&cursor=', { view: 'loops', filter: 'all' }],
    ['/console/loops', '?older_than_s=abc&filter=Stale', { view: 'loops', filter: 'all' }],
    ['/console/loops', '?older_than_s=&filter=stale', { view: 'loops', filter: 'stale' }],
    [
      '/console/loops',
      '?older_than_s=1&session_id=s&cursor=c',
      { view: 'loops', filter: 'all', olderThanS: 1, sessionId: 's', cursor: 'c' },
    ],
  ])('reads %s%s as the view it always did', (pathname, search, route) => {
    expect(parseRoute(pathname, search)).toEqual(route);
  });

  it('writes the address of every view as it always did', () => {
    expect(
      [
        { view: 'home' },
        { view: 'sessions', cursor: 'a/b' },
        { view: 'session', sessionId: 'a b' },
        { view: 'loops', filter: 'all' },
        { view: 'loops', filter: 'stale', olderThanS: 60, sessionId: 's', cursor: 'c' },
        { view: 'loop', sessionId: 'a/b', loopId: 'c' },
        { view: 'nodes' },
        { view: 'refusals' },
        { view: 'notification', commandId: 'x?y' },
        { view: 'unknown', path: '/console/what?ever' },
      ].map((route) => routeHref(route as ConsoleRoute)),
    ).toEqual([
      '/console',
      '/console/sessions?cursor=a%2Fb',
      '/console/sessions/a%20b',
      '/console/loops',
      '/console/loops?filter=stale&older_than_s=60&session_id=s&cursor=c',
      '/console/sessions/a%2Fb/loops/c',
      '/console/nodes',
      '/console/refusals',
      '/console/notifications/x%3Fy',
      '/console/what?ever',
    ]);
  });
});
