import { badUserInput } from './errors.js';

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** Validates limit/offset against the configured bounds; the message names the bound. */
export function resolvePage(
  limit: number | null | undefined,
  offset: number | null | undefined,
  bounds: { readonly defaultLimit: number; readonly maxLimit: number },
): Page {
  const effectiveLimit = limit ?? bounds.defaultLimit;
  if (effectiveLimit < 0 || effectiveLimit > bounds.maxLimit) {
    throw badUserInput(`limit must be between 0 and ${bounds.maxLimit}, got ${effectiveLimit}`);
  }
  const effectiveOffset = offset ?? 0;
  if (effectiveOffset < 0) {
    throw badUserInput(`offset must be 0 or greater, got ${effectiveOffset}`);
  }
  return { limit: effectiveLimit, offset: effectiveOffset };
}
