// /docs: one self-contained HTML page (no external resources). Its sections are data (sections/), rendered by
// blocks.ts; the schema reference and the configuration table are generated from the SDL and the config key list,
// so they cannot drift. The guide's examples run against the demo data loaded in development.
import type { CoreConfig } from '../config.js';
import type { Section } from './blocks.js';
import { renderPage } from './page-shell.js';
import { renderSchemaReference } from './schema-reference.js';
import { ADDITIONS } from './sections/additions.js';
import { CONFIGURATION } from './sections/configuration.js';
import { endpoints } from './sections/endpoints.js';
import { errors } from './sections/errors.js';
import { filters } from './sections/filters.js';
import { OPERATIONS } from './sections/operations.js';
import { ORDERING } from './sections/ordering.js';
import { pagination } from './sections/pagination.js';
import { SHORTHAND } from './sections/shorthand.js';
import { VALUES_SERVED } from './sections/values-served.js';

/** The page's sections in order, with the limits as configured. */
export function docsSections(config: CoreConfig, nowMs: number = Date.now()): readonly Section[] {
  return [OPERATIONS, filters(nowMs), SHORTHAND, ORDERING, ADDITIONS, pagination(config.graphql), VALUES_SERVED, errors(config), endpoints(config), CONFIGURATION];
}

export function renderDocsPage(deps: { readonly config: CoreConfig; readonly sdl: string }): string {
  return renderPage(docsSections(deps.config), renderSchemaReference(deps.sdl));
}
