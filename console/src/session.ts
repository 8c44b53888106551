// The signed-in person's session, kept in sessionStorage: this tab only, gone when it closes, never sent anywhere but
// as the bearer token of /graphql. The GraphQL UI reads the same keys (server/core/src/graphiql-session.ts).
export const SESSION_KEY = 'workflow-index.session';
/** Where to go after signing in when the sign-in was asked for by another page of this origin (the GraphQL UI). */
export const RETURN_KEY = 'workflow-index.return-to';

export interface Session {
  readonly accessToken: string;
  /** Epoch milliseconds after which the access token is not sent any more. */
  readonly expiresAt: number;
  /** For the end-session request (id_token_hint). */
  readonly idToken: string;
  /** Shown in the header: preferred_username, name, email or sub of the ID token. */
  readonly name: string;
}

/** The session, or null when there is none or its token has expired. */
export function readSession(now: number = Date.now()): Session | null {
  let value: unknown;
  try {
    value = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
  } catch {
    return null;
  }
  if (!isSession(value) || value.expiresAt <= now) return null;
  return value;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** Takes (and forgets) the page another part of this origin asked to return to; only a path of this origin. */
export function takeReturnTo(): string | null {
  const value = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  return value === null ? null : sameOriginPath(value);
}

/** `value` when it is a path on this origin ("/…", not "//host/…"), else null. */
export function sameOriginPath(value: string): string | null {
  return value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : null;
}

function isSession(value: unknown): value is Session {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return typeof s['accessToken'] === 'string' && typeof s['expiresAt'] === 'number' && typeof s['idToken'] === 'string' && typeof s['name'] === 'string';
}
