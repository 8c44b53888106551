// What the console page is told about sign-in (CONTRACT §8): nothing with AUTH_MODE=none (the page is then exactly
// the build's index.html); with AUTH_MODE=oidc the issuer, the console's public client id and scope — public values,
// never a secret — in a <meta> element the console reads at start, and a CSP that lets the page reach the issuer
// (discovery and the token endpoint). The authorization and end-session endpoints are top-level navigations, which
// connect-src and form-action do not govern.
import type { AuthConfig } from './auth/auth-config.js';

export type ConsoleSignIn =
  | { readonly mode: 'none' }
  /** AUTH_MODE=oidc without OIDC_CONSOLE_CLIENT_ID: the console explains it and loads no data. */
  | { readonly mode: 'unconfigured' }
  | { readonly mode: 'oidc'; readonly issuer: string; readonly clientId: string; readonly scope: string };

export const SIGN_IN_META_NAME = 'workflow-index-sign-in';

export function consoleSignInOf(auth: AuthConfig): ConsoleSignIn {
  if (auth.mode === 'none') return { mode: 'none' };
  if (auth.console === null) return { mode: 'unconfigured' };
  return { mode: 'oidc', issuer: auth.oidc.issuer, clientId: auth.console.clientId, scope: auth.console.scope };
}

/** The page's CSP: only this origin, plus the issuer's origin for fetches when the console signs in. */
export function consoleCspOf(signIn: ConsoleSignIn): string {
  const connect = signIn.mode === 'oidc' ? `connect-src 'self' ${new URL(signIn.issuer).origin}` : "connect-src 'self'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    connect,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** index.html with the sign-in settings as a <meta> before </head>; unchanged with AUTH_MODE=none. */
export function withSignInMeta(html: string, signIn: ConsoleSignIn): string {
  if (signIn.mode === 'none') return html;
  const meta = `<meta name="${SIGN_IN_META_NAME}" content="${escapeAttribute(JSON.stringify(signIn))}" />`;
  return html.replace('</head>', `  ${meta}\n  </head>`);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
