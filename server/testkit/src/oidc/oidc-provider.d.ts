// The part of oidc-provider's API the test issuer uses. The package ships JavaScript only; these declarations cover
// what src/oidc/ calls and nothing more, typed after oidc-provider 9's lib/ sources.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type { JWK } from 'jose';

  export interface KoaContextLike { type: string; body: unknown; status: number }

  export interface AdapterPayload { [key: string]: unknown; uid?: string; grantId?: string; userCode?: string; consumed?: number }
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }
  export type AdapterFactory = (model: string) => Adapter;

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    grant_types?: string[];
    response_types?: string[];
    redirect_uris?: string[];
    post_logout_redirect_uris?: string[];
    token_endpoint_auth_method?: string;
    id_token_signed_response_alg?: string;
  }
  export interface ClientLike { clientId: string; redirectUris?: string[] }

  /** The token an extraTokenClaims call is about: an AccessToken (a user's) or a ClientCredentials token. */
  export interface IssuedToken { kind: string; clientId?: string; accountId?: string }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg: string } };
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Configuration {
    adapter?: AdapterFactory;
    clients?: ClientMetadata[];
    clientDefaults?: Partial<ClientMetadata>;
    clientBasedCORS?: (ctx: unknown, origin: string, client: ClientLike) => boolean;
    claims?: Record<string, string[] | null>;
    conformIdTokenClaims?: boolean;
    cookies?: { keys?: string[] };
    extraTokenClaims?: (ctx: unknown, token: IssuedToken) => Promise<Record<string, unknown> | undefined>;
    features?: {
      devInteractions?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      introspection?: { enabled: boolean };
      revocation?: { enabled: boolean };
      rpInitiatedLogout?: {
        enabled: boolean;
        logoutSource?: (ctx: KoaContextLike, form: string) => Promise<void>;
        postLogoutSuccessSource?: (ctx: KoaContextLike) => Promise<void>;
      };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: unknown, client: ClientLike, oneOf?: string[]) => Promise<string | string[] | undefined>;
        useGrantedResource?: (ctx: unknown, model: unknown) => Promise<boolean>;
        getResourceServerInfo?: (ctx: unknown, resourceIndicator: string, client: ClientLike) => Promise<ResourceServerInfo>;
      };
    };
    findAccount?: (ctx: unknown, sub: string, token?: unknown) => Promise<Account | undefined>;
    interactions?: { url: (ctx: unknown, interaction: { uid: string }) => string | Promise<string> };
    jwks?: { keys: JWK[] };
    renderError?: (ctx: KoaContextLike, out: Record<string, string>, error: Error) => Promise<void>;
    routes?: Record<string, string>;
    scopes?: string[];
    ttl?: Record<string, number>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: {
      name: string;
      details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    };
    params: Record<string, unknown> & { client_id: string };
    session?: { accountId: string };
    grantId?: string;
  }

  export type InteractionResult =
    | { login: { accountId: string } }
    | { consent: { grantId: string } };

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Configuration);
    readonly issuer: string;
    readonly Grant: typeof Grant;
    /** Koa: no default error logging. */
    silent: boolean;
    callback(): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(request: IncomingMessage, response: ServerResponse, result: InteractionResult, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export const errors: { InvalidTarget: new (description?: string) => Error };

  export default Provider;
}
