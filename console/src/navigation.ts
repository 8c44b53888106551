// History-based navigation over the query string: every view change is a pushState, the back button a popstate.
import { useEffect, useState } from 'preact/hooks';
import { formatView, parseView } from './view-state.ts';
import type { ViewState } from './view-state.ts';

const listeners = new Set<() => void>();

export function navigate(view: ViewState, options: { replace?: boolean } = {}): void {
  const url = `${location.pathname}${formatView(view)}`;
  if (url === `${location.pathname}${location.search}`) return;
  if (options.replace === true) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** The href of a view (for real links: open in a new tab, copy the address). */
export function hrefOf(view: ViewState): string {
  return `${location.pathname}${formatView(view)}`;
}

export function useView(): ViewState {
  const [view, setView] = useState(() => parseView(location.search));
  useEffect(() => {
    const update = (): void => setView(parseView(location.search));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return view;
}

/** Plain left clicks on an in-app link navigate without a page load; others (new tab, …) behave as links do. */
export function onLinkClick(view: ViewState): (event: MouseEvent) => void {
  return (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(view);
  };
}
