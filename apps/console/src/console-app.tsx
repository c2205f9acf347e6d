import { useEffect, useMemo, useState } from 'preact/hooks';
import { ProblemError } from 'process-notifications-client';
import { consoleClients } from './api/console-clients.js';
import type { Identity } from './auth/identity.js';
import { SignInView } from './auth/sign-in.view.js';
import { tokenStore } from './auth/token-store.js';
import { ConsoleLayout } from './components/console-layout.js';
import { Loading } from './components/loading.js';
import { ProblemMessage } from './components/problem-message.js';
import { routeHref, type ConsoleRoute } from './routing/console-route.js';
import { navigate, useRoute } from './routing/navigation.js';
import type { ViewProps } from './views/view-props.js';
import { LoopView } from './views/loop.view.js';
import { LoopsView } from './views/loops.view.js';
import { NodesView } from './views/nodes.view.js';
import { NotificationView } from './views/notification.view.js';
import { RefusalsView } from './views/refusals.view.js';
import { SessionView } from './views/session.view.js';
import { SessionsView } from './views/sessions.view.js';
import { UnknownView } from './views/unknown.view.js';

type SignedIn = { readonly token: string; readonly identity: Identity };

/** Where `/console` itself leads: the admin's list of sessions, a session token's own session. */
const homeOf = (identity: Identity): ConsoleRoute =>
  identity.kind === 'session' && identity.session_id ? { view: 'session', sessionId: identity.session_id } : { view: 'sessions' };

function View(props: ViewProps & { route: ConsoleRoute }) {
  const { route, ...view } = props;
  switch (route.view) {
    case 'home':
      return <Loading />;
    case 'sessions':
      return <SessionsView {...view} route={route} />;
    case 'session':
      return <SessionView {...view} route={route} />;
    case 'loops':
      return <LoopsView {...view} route={route} />;
    case 'loop':
      return <LoopView {...view} route={route} />;
    case 'nodes':
      return <NodesView {...view} />;
    case 'refusals':
      return <RefusalsView {...view} />;
    case 'notification':
      return <NotificationView {...view} route={route} />;
    case 'unknown':
      return <UnknownView route={route} />;
  }
}

/**
 * The console: the sign-in form until a token is known, then the view the address names. A
 * token kept from earlier in this tab is checked again first (it may have been revoked).
 */
export function ConsoleApp() {
  const route = useRoute();
  const [stored] = useState(tokenStore.read);
  const [signedIn, setSignedIn] = useState<SignedIn | undefined>(undefined);
  const [checking, setChecking] = useState(stored !== undefined);
  const [checkFailed, setCheckFailed] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);

  useEffect(() => {
    if (stored === undefined) return;
    const controller = new AbortController();
    consoleClients(stored)
      .api.whoami({ signal: controller.signal })
      .then(
        (identity) => setSignedIn({ token: stored, identity }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          // A token the server no longer knows is forgotten; the server being away is only shown.
          if (error instanceof ProblemError && error.status === 401) tokenStore.forget();
          else setCheckFailed(error);
        },
      )
      .finally(() => setChecking(false));
    return () => controller.abort();
  }, [stored]);

  useEffect(() => {
    if (signedIn && route.view === 'home') navigate(routeHref(homeOf(signedIn.identity)), { replace: true });
  }, [signedIn, route]);

  const clients = useMemo(() => (signedIn ? consoleClients(signedIn.token) : undefined), [signedIn]);

  if (checking)
    return (
      <main>
        <Loading what="the console" />
      </main>
    );
  if (checkFailed !== undefined && !signedIn) {
    return (
      <main>
        <h1>Process notifications console</h1>
        <ProblemMessage error={checkFailed} />
        <button type="button" onClick={() => location.reload()}>
          Try again
        </button>
      </main>
    );
  }
  if (!signedIn || !clients) {
    return (
      <SignInView
        notice={notice}
        onSignedIn={(token, identity) => {
          tokenStore.save(token);
          setNotice(undefined);
          setSignedIn({ token, identity });
        }}
      />
    );
  }
  const signOut = (why = 'Signed out.'): void => {
    tokenStore.forget();
    setSignedIn(undefined);
    setNotice(why);
  };
  const account = {
    replaceToken: (token: string): void => {
      tokenStore.save(token);
      setSignedIn({ token, identity: signedIn.identity });
    },
    signOut,
  };
  return (
    <ConsoleLayout route={route} identity={signedIn.identity} onSignOut={() => signOut()}>
      <View route={route} clients={clients} identity={signedIn.identity} account={account} />
    </ConsoleLayout>
  );
}
