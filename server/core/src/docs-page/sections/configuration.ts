import { CORE_CONFIG_KEYS } from '../../config.js';
import { paragraph, table } from '../blocks.js';
import type { Section } from '../blocks.js';

/** The keys of CORE_CONFIG_KEYS, so the page and the configuration cannot drift apart. */
export const CONFIGURATION: Section = {
  id: 'configuration',
  title: 'Configuration',
  nav: 'Configuration',
  blocks: [
    paragraph(`Environment variables (command-line flags, where a command takes them, win over the environment). All keys are checked at
start-up and every problem is reported at once. The storage backend adds its own keys (docs/configuration.md in the repository lists every setting).`),
    table(
      ['key', 'development', 'production', 'meaning'],
      CORE_CONFIG_KEYS.map((k) => [`\`${k.key}\``, `\`${k.development}\``, `\`${k.production}\``, k.description]),
    ),
  ],
};
