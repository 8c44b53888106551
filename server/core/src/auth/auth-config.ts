// AUTH_MODE and the settings of sign-in (CONTRACT §8). `none` (the default) serves every client everything;
// `oidc` needs an issuer, an audience and a rules file, read and checked at start-up with the rest of the
// configuration. OIDC_CONSOLE_CLIENT_ID lets the web console sign people in as a public client (PKCE).
import type { ConfigKeyDoc, ConfigReader } from '../config.js';
import { readAccessRules } from './access-rules.js';
import type { AccessRule } from './access-rules.js';
import type { OidcSettings } from './token-verifier.js';

export type AuthConfig =
  | { readonly mode: 'none' }
  | {
      readonly mode: 'oidc';
      readonly oidc: OidcSettings;
      readonly rules: readonly AccessRule[];
      readonly rulesFile: string;
      /** The console's public client, or null: the console then explains that it cannot sign in. */
      readonly console: ConsoleClient | null;
    };

/** What the console needs to sign a person in at the issuer; public by nature (no secret). */
export interface ConsoleClient {
  readonly clientId: string;
  readonly scope: string;
}

export const DEFAULT_CONSOLE_SCOPE = 'openid profile';

export const AUTH_CONFIG_KEYS: readonly ConfigKeyDoc[] = Object.freeze([
  { key: 'AUTH_MODE', development: 'none', production: 'none', description: 'none: every client that reaches the service reads every run (logged as a warning at start-up in production); oidc: /graphql needs a bearer token of OIDC_ISSUER and serves each subject what AUTHZ_RULES_FILE grants its groups.' },
  { key: 'OIDC_ISSUER', development: '—', production: '—', description: 'AUTH_MODE=oidc: the issuer URL, exactly as tokens carry it in iss; its /.well-known/openid-configuration names the keys (cached, fetched again for a key it does not hold, so keys rotate without a restart).' },
  { key: 'OIDC_AUDIENCE', development: '—', production: '—', description: 'AUTH_MODE=oidc: the aud a token must carry.' },
  { key: 'OIDC_GROUPS_CLAIM', development: 'groups', production: 'groups', description: 'AUTH_MODE=oidc: the claim with the subject\'s groups (a string or a list), or a dotted path such as realm_access.roles.' },
  { key: 'AUTHZ_RULES_FILE', development: '—', production: '—', description: 'AUTH_MODE=oidc: YAML or JSON {"rules": [{"group": "team-shop", "namespaces": ["org.acme.shop", "org.acme.*"], "payloads": false}]}; * in a pattern matches any characters, * alone every namespace (runs without one included); a subject gets the union of the rules of its groups.' },
  { key: 'OIDC_CONSOLE_CLIENT_ID', development: '—', production: '—', description: 'AUTH_MODE=oidc: the public client (no secret, PKCE) the web console signs people in with; its redirect URI at the issuer is <origin>/q/console/. Unset: the console says sign-in is not configured and serves no data.' },
  { key: 'OIDC_CONSOLE_SCOPE', development: DEFAULT_CONSOLE_SCOPE, production: DEFAULT_CONSOLE_SCOPE, description: 'AUTH_MODE=oidc: the scope the console asks for (must include openid). The issuer must put OIDC_AUDIENCE in the aud of the console\'s access tokens (Keycloak: an audience mapper; otherwise a default resource indicator).' },
  { key: 'OIDC_CLOCK_SKEW_SECONDS', development: '30', production: '30', description: 'AUTH_MODE=oidc: how far exp and nbf may be off the server\'s clock.' },
] satisfies ConfigKeyDoc[]);

export function loadAuthConfig(r: ConfigReader): AuthConfig {
  const mode = r.oneOf('AUTH_MODE', ['none', 'oidc'] as const, 'none', { caseInsensitive: true });
  if (mode === 'none') {
    for (const key of ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'AUTHZ_RULES_FILE', 'OIDC_CONSOLE_CLIENT_ID']) {
      if (r.raw(key) !== undefined) r.problem(`${key} is set but AUTH_MODE is none: set AUTH_MODE=oidc to require sign-in, or unset ${key}`);
    }
    return { mode };
  }
  const issuer = required(r, 'OIDC_ISSUER', 'the issuer URL, e.g. https://keycloak.example.com/realms/acme');
  if (issuer !== '' && !isHttpUrl(issuer)) r.problem(`OIDC_ISSUER must be an http(s) URL, got ${JSON.stringify(issuer)}`);
  const audience = required(r, 'OIDC_AUDIENCE', 'the aud your tokens carry for this service');
  const rulesFile = required(r, 'AUTHZ_RULES_FILE', 'the file of group → namespace rules');
  const rules = rulesFile === '' ? [] : readRules(r, rulesFile);
  const oidc: OidcSettings = {
    issuer,
    audience,
    groupsClaim: r.string('OIDC_GROUPS_CLAIM', 'groups'),
    clockSkewSeconds: r.int('OIDC_CLOCK_SKEW_SECONDS', 30, { min: 0, max: 600 }),
  };
  return { mode, oidc, rules, rulesFile, console: consoleClient(r) };
}

function consoleClient(r: ConfigReader): ConsoleClient | null {
  const scope = r.string('OIDC_CONSOLE_SCOPE', DEFAULT_CONSOLE_SCOPE);
  if (!scope.split(/\s+/).includes('openid')) r.problem(`OIDC_CONSOLE_SCOPE must include openid (the console signs a person in), got ${JSON.stringify(scope)}`);
  const clientId = r.raw('OIDC_CONSOLE_CLIENT_ID');
  if (clientId === undefined) return null;
  return { clientId, scope };
}

function required(r: ConfigReader, key: string, what: string): string {
  const value = r.raw(key);
  if (value === undefined) r.problem(`AUTH_MODE=oidc needs ${key}: ${what}`);
  return value ?? '';
}

function readRules(r: ConfigReader, file: string): readonly AccessRule[] {
  const { rules, problems } = readAccessRules(file);
  for (const problem of problems) r.problem(problem);
  return rules;
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}
