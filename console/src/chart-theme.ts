// The charts' colours are the stylesheet's variables (status colours, text, grid), read when a chart is drawn: a
// canvas cannot use CSS variables itself. A change of colour scheme while the page is open redraws the charts.
import { useEffect, useState } from 'preact/hooks';

export type Scheme = 'light' | 'dark';

const DARK = '(prefers-color-scheme: dark)';

/** The value of a CSS custom property as `el` sees it (`--completed` → `#1e7d3a`). */
export function cssVar(el: Element, name: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim();
}

/** The colour scheme in force, following changes (the system switching to dark at night). */
export function useColorScheme(): Scheme {
  const [scheme, setScheme] = useState<Scheme>(() => (matchMedia(DARK).matches ? 'dark' : 'light'));
  useEffect(() => {
    const query = matchMedia(DARK);
    const update = (): void => setScheme(query.matches ? 'dark' : 'light');
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return scheme;
}

/** The canvas font of the axes: the page's own (system fonts), a size below the body text. */
export function axisFont(el: Element): string {
  return `12px ${getComputedStyle(el).fontFamily}`;
}
