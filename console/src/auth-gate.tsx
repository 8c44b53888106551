// Nothing of the console is shown, and no data asked for, until the person is signed in (AUTH_MODE=oidc): without a
// session the browser goes to the issuer's login; back from it with a code, the code is exchanged and the view the
// person was on is restored. With AUTH_MODE=none the console is shown at once, as it always was.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { completeSignIn, isCallback, startSignIn } from './oidc-client.ts';
import type { OidcSettings } from './oidc-client.ts';
import { RETURN_KEY, readSession, takeReturnTo } from './session.ts';
import { signInSettings } from './sign-in-settings.ts';

type GateState = { readonly state: 'ready' } | { readonly state: 'signing-in' } | { readonly state: 'error'; readonly message: string };

export function AuthGate({ children }: { children: ComponentChildren }) {
  const settings = signInSettings();
  if (settings.mode === 'none') return <>{children}</>;
  if (settings.mode === 'unconfigured') return <SignInNotConfigured />;
  return <SignedIn settings={settings}>{children}</SignedIn>;
}

function SignedIn({ settings, children }: { settings: OidcSettings; children: ComponentChildren }) {
  const gate = useSignIn(settings);
  if (gate.state === 'ready') return <>{children}</>;
  if (gate.state === 'signing-in') return <Notice title="Signing in…" testId="signing-in" />;
  return (
    <Notice title="Sign-in failed" testId="sign-in-error">
      <p>{gate.message}</p>
      <p>
        <a href="/q/console/">Sign in again</a>
      </p>
    </Notice>
  );
}

function useSignIn(settings: OidcSettings): GateState {
  const [gate, setGate] = useState<GateState>(() => (!isCallback() && readSession() !== null && sessionStorage.getItem(RETURN_KEY) === null ? { state: 'ready' } : { state: 'signing-in' }));
  useEffect(() => {
    if (gate.state !== 'signing-in') return;
    signInStep(settings).then(
      (ready) => ready && setGate({ state: 'ready' }),
      (error: unknown) => setGate({ state: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
  }, []);
  return gate;
}

/** One step of signing in; true when the console can be shown (otherwise the browser is on its way elsewhere). */
async function signInStep(settings: OidcSettings): Promise<boolean> {
  if (isCallback()) return show(await completeSignIn(settings));
  const returnTo = takeReturnTo();
  if (readSession() !== null) return returnTo === null ? true : show(returnTo);
  await startSignIn(settings, returnTo ?? `${location.pathname}${location.search}`);
  return false;
}

/** Shows `path`: in place when it is a view of the console (the code and state leave the URL), else by loading it. */
function show(path: string): boolean {
  const { pathname } = new URL(path, location.origin);
  if (pathname === '/' || pathname.replace(/\/$/, '') === '/q/console') {
    history.replaceState(null, '', path);
    return true;
  }
  location.replace(path);
  return false;
}

function SignInNotConfigured() {
  return (
    <Notice title="Sign-in is not configured" testId="sign-in-not-configured">
      <p>
        This server requires a bearer token for every query (<code>AUTH_MODE=oidc</code>), but the console has no client to sign you in with:
        the operator sets <code>OIDC_CONSOLE_CLIENT_ID</code> to a public client registered at the issuer (see docs/access-control.md).
      </p>
      <p>
        Meanwhile, call the API with a token of the issuer: <code>curl -H 'Authorization: Bearer &lt;access token&gt;' -H 'Content-Type: application/json' -d '{'{'}"query":"{'{'} getWorkflowInstances(limit: 10) {'{'} id name status {'}'} {'}'}"{'}'}' {location.origin}/graphql</code>
      </p>
    </Notice>
  );
}

function Notice({ title, testId, children }: { title: string; testId: string; children?: ComponentChildren }) {
  return (
    <main id="main" class="notice" data-testid={testId}>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
