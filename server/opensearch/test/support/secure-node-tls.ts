// The certificates of the secured test node, made with openssl at setup in the node's config folder: a CA, the node's
// certificate (transport TLS, which the security plugin requires, and https on loopback: SAN 127.0.0.1 and localhost;
// server and client use, since nodes authenticate each other with it) and an admin certificate (the security
// plugin's `authcz.admin_dn`). Keys are unencrypted PKCS#8, the only form the plugin reads. Valid 2 days: the files
// are made again on every start.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/local-node-distribution.js';

export const NODE_DN = 'CN=workflow-index-test-node';
export const ADMIN_DN = 'CN=workflow-index-test-admin';

export interface NodeCertificates {
  /** Relative to the config folder, as opensearch.yml names them. */
  readonly ca: string;
  readonly nodeCert: string;
  readonly nodeKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  /** Absolute path of the CA (what a client verifies the node with: OPENSEARCH_CA_FILE). */
  readonly caFile: string;
}

function openssl(args: readonly string[], what: string, cwd: string): void {
  run('openssl', args, `openssl ${what}`, { cwd });
}

function signed(config: string, name: string, dn: string, extensions: string): void {
  const extFile = `${name}.ext`;
  writeFileSync(join(config, extFile), `${extensions}\n`);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}-key-rsa.pem`, '-out', `${name}.csr`, '-subj', `/${dn}`], `req ${name}`, config);
  openssl(['pkcs8', '-topk8', '-nocrypt', '-in', `${name}-key-rsa.pem`, '-out', `${name}-key.pem`], `pkcs8 ${name}`, config);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'root-ca.pem', '-CAkey', 'root-ca-key.pem', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', extFile], `x509 ${name}`, config);
  for (const leftover of [`${name}-key-rsa.pem`, `${name}.csr`, extFile]) rmSync(join(config, leftover), { force: true });
}

/** Writes a fresh CA, node and admin certificate into `config` (the node's config folder). */
export function writeNodeCertificates(config: string): NodeCertificates {
  if (!existsSync(config)) throw new Error(`${config} does not exist`);
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'root-ca-key.pem', '-out', 'root-ca.pem', '-days', '2', '-subj', '/CN=workflow-index-test-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    'req ca',
    config,
  );
  signed(config, 'node', NODE_DN, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature,keyEncipherment');
  signed(config, 'admin', ADMIN_DN, 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment');
  return { ca: 'root-ca.pem', nodeCert: 'node.pem', nodeKey: 'node-key.pem', adminCert: 'admin.pem', adminKey: 'admin-key.pem', caFile: join(config, 'root-ca.pem') };
}
