// A server's sign-in for a suite or a bench run: a test issuer, a rules file in a temporary folder, and the settings
// that turn AUTH_MODE=oidc on against them. stop() stops the issuer and removes the folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestIssuer } from './test-issuer.js';
import type { TestIssuer, TestIssuerOptions } from './types.js';

export interface TestAccessRule {
  readonly group: string;
  readonly namespaces: readonly string[];
  readonly payloads: boolean;
}

export interface TestSignIn {
  readonly issuer: TestIssuer;
  /** AUTH_MODE, OIDC_ISSUER, OIDC_AUDIENCE and AUTHZ_RULES_FILE for the server. */
  readonly settings: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startTestSignIn(options: TestIssuerOptions & { readonly rules: readonly TestAccessRule[] }): Promise<TestSignIn> {
  const { rules, ...issuerOptions } = options;
  const issuer = await startTestIssuer(issuerOptions);
  const dir = mkdtempSync(join(tmpdir(), 'wi-sign-in-'));
  const stop = async (): Promise<void> => {
    await issuer.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const rulesFile = join(dir, 'rules.json');
    writeFileSync(rulesFile, `${JSON.stringify({ rules }, null, 2)}\n`);
    return { issuer, settings: { AUTH_MODE: 'oidc', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: options.audience, AUTHZ_RULES_FILE: rulesFile }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
