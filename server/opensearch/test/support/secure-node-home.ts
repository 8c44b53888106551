// The home of the secured test node: the OpenSearch 3.4.0 integ-test zip plus what it lacks, all from Maven Central
// (cached in ~/.m2), assembled once per home:
//   - modules lang-painless, lang-mustache and ingest-common (the raw pipeline's script processor, the set processor
//     and its `{{_ingest.timestamp}}` template need them): the 3.4.0
//     integ-test zip ships only the transport modules (3.8.0's ships 22). Maven Central has their jars and poms, so
//     each module folder is the module's jar with its own runtime dependencies (OpenSearch's excluded: they are in
//     lib/) and the plugin descriptor the distribution would carry.
//   - the security plugin 3.4.0.0 (the newest Maven Central serves), installed with `opensearch-plugin install`. Its
//     descriptor makes the module rule-framework a mandatory parent, and that module is not published: the security
//     plugin only contributes an optional extension to it (META-INF/services, loaded by rule-framework itself) and
//     borrows its commons-collections4. So the zip is installed with rule-framework marked optional, like
//     workload-management already is, and with commons-collections4 4.5.0 (rule-framework's copy in 3.8.0) beside it.
//     Neither change touches how the plugin authenticates or authorizes.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEPENDENCY_PLUGIN, fetchMavenArtifact, run } from '../../src/local-node-distribution.js';

export const SECURE_NODE_VERSION = '3.4.0';
export const SECURITY_PLUGIN_ARTIFACT = `org.opensearch.plugin:opensearch-security:${SECURE_NODE_VERSION}.0:zip`;
const COLLECTIONS_ARTIFACT = 'org.apache.commons:commons-collections4:4.5.0';

interface ModuleSpec {
  readonly name: string;
  /** Its artifact id under org.opensearch.plugin. */
  readonly artifact: string;
  readonly description: string;
  readonly classname: string;
  readonly extended: string;
  readonly policy?: string;
}

// In load order: ingest-common extends lang-painless.
const MODULES: readonly ModuleSpec[] = [
  {
    name: 'lang-painless',
    artifact: 'lang-painless',
    description: 'An easy, safe and fast scripting language for OpenSearch',
    classname: 'org.opensearch.painless.PainlessModulePlugin',
    extended: '',
    policy: 'grant {\n  permission java.lang.RuntimePermission "createClassLoader";\n  permission java.lang.RuntimePermission "getClassLoader";\n};\n',
  },
  {
    name: 'lang-mustache',
    artifact: 'lang-mustache-client',
    description: 'Mustache scripting integration for OpenSearch',
    classname: 'org.opensearch.script.mustache.MustacheModulePlugin',
    extended: '',
    policy: 'grant {\n  permission java.lang.RuntimePermission "accessDeclaredMembers";\n};\n',
  },
  {
    name: 'ingest-common',
    artifact: 'ingest-common',
    description: 'Module for ingest processors that do not require additional security permissions or have large dependencies and resources',
    classname: 'org.opensearch.ingest.common.IngestCommonModulePlugin',
    extended: 'lang-painless',
  },
];

function descriptor(spec: ModuleSpec): string {
  return [
    `description=${spec.description}`,
    `version=${SECURE_NODE_VERSION}`,
    `name=${spec.name}`,
    `classname=${spec.classname}`,
    'java.version=21',
    `opensearch.version=${SECURE_NODE_VERSION}`,
    'custom.foldername=',
    `extended.plugins=${spec.extended}`,
    'has.native.controller=false',
    '',
  ].join('\n');
}

// A throw-away project whose only dependency is the module; OpenSearch's own artifacts are excluded (lib/ has them).
function modulePom(artifact: string): string {
  const exclusions = ['opensearch', 'opensearch-core', 'opensearch-common']
    .map((artifact) => `<exclusion><groupId>org.opensearch</groupId><artifactId>${artifact}</artifactId></exclusion>`)
    .join('');
  return `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>workflow-index.test</groupId><artifactId>${artifact}-module</artifactId><version>1</version>
<dependencies><dependency><groupId>org.opensearch.plugin</groupId><artifactId>${artifact}</artifactId><version>${SECURE_NODE_VERSION}</version>
<exclusions>${exclusions}</exclusions></dependency></dependencies></project>
`;
}

function addModule(home: string, scratch: string, spec: ModuleSpec): void {
  const folder = join(home, 'modules', spec.name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const pom = join(scratch, `${spec.name}-pom.xml`);
  writeFileSync(pom, modulePom(spec.artifact));
  run('mvn', ['-B', '-q', '-f', pom, `${DEPENDENCY_PLUGIN}:copy-dependencies`, `-DoutputDirectory=${folder}`], `mvn copy-dependencies org.opensearch.plugin:${spec.artifact}:${SECURE_NODE_VERSION}`);
  writeFileSync(join(folder, 'plugin-descriptor.properties'), descriptor(spec));
  if (spec.policy !== undefined) writeFileSync(join(folder, 'plugin-security.policy'), spec.policy);
}

/** The security plugin zip with rule-framework optional and commons-collections4 added (see the header). */
function patchedSecurityZip(scratch: string): string {
  const original = fetchMavenArtifact(SECURITY_PLUGIN_ARTIFACT, join(scratch, 'download')).path;
  const collections = fetchMavenArtifact(COLLECTIONS_ARTIFACT, join(scratch, 'download')).path;
  const unpacked = join(scratch, 'opensearch-security');
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked, { recursive: true });
  run('unzip', ['-q', original, '-d', unpacked], `unzip ${original}`);
  const descriptorFile = join(unpacked, 'plugin-descriptor.properties');
  const text = readFileSync(descriptorFile, 'utf8');
  const patched = text.replace(/^extended\.plugins=.*$/m, 'extended.plugins=workload-management;optional=true,rule-framework;optional=true');
  if (patched === text && !/rule-framework;optional=true/.test(text)) throw new Error(`unexpected descriptor in ${original}:\n${text}`);
  writeFileSync(descriptorFile, patched);
  copyFileSync(collections, join(unpacked, 'commons-collections4-4.5.0.jar'));
  const zip = join(scratch, 'opensearch-security-patched.zip');
  rmSync(zip, { force: true });
  run('zip', ['-q', '-r', zip, '.'], `zip ${zip}`, { cwd: unpacked });
  rmSync(unpacked, { recursive: true, force: true });
  return zip;
}

/** Adds the two modules and the security plugin to a freshly unzipped 3.4.0 home (once: a marker records it). */
export function completeSecureHome(home: string, javaHome: string, log: (line: string) => void): void {
  const marker = join(home, '.workflow-index-secure-complete');
  if (existsSync(marker)) return;
  const scratch = join(home, '..', `assemble-${process.pid}`);
  try {
    for (const spec of MODULES) {
      log(`secure node: module ${spec.name} ${SECURE_NODE_VERSION} from Maven Central`);
      addModule(home, scratch, spec);
    }
    log(`secure node: installing ${SECURITY_PLUGIN_ARTIFACT}`);
    const zip = patchedSecurityZip(scratch);
    rmSync(join(home, 'plugins', 'opensearch-security'), { recursive: true, force: true });
    rmSync(join(home, 'config', 'opensearch-security'), { recursive: true, force: true });
    run(join(home, 'bin', 'opensearch-plugin'), ['install', '--batch', pathToFileURL(zip).href], 'opensearch-plugin install opensearch-security', {
      env: { ...process.env, OPENSEARCH_JAVA_HOME: javaHome, OPENSEARCH_PATH_CONF: join(home, 'config') },
    });
    writeFileSync(marker, `${SECURITY_PLUGIN_ARTIFACT}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
