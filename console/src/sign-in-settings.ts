// What the server says about sign-in, in a <meta> of index.html (server/core/src/console-sign-in.ts): nothing with
// AUTH_MODE=none; with AUTH_MODE=oidc the issuer and the console's public client, or that sign-in is not configured.
export type SignInSettings =
  | { readonly mode: 'none' }
  | { readonly mode: 'unconfigured' }
  | { readonly mode: 'oidc'; readonly issuer: string; readonly clientId: string; readonly scope: string };

const META_NAME = 'workflow-index-sign-in';

let cached: SignInSettings | undefined;

export function signInSettings(): SignInSettings {
  cached ??= read();
  return cached;
}

function read(): SignInSettings {
  const content = document.querySelector(`meta[name="${META_NAME}"]`)?.getAttribute('content');
  if (content === null || content === undefined) return { mode: 'none' };
  const value = JSON.parse(content) as SignInSettings;
  // A page that names sign-in but not in a form this console knows must not show data without it.
  return value.mode === 'oidc' || value.mode === 'none' ? value : { mode: 'unconfigured' };
}
