// The run page's two views, as links (the tab is in the URL: shareable, and the back button walks it).
import { hrefOf, onLinkClick } from './navigation.ts';
import type { RunTab, ViewState } from './view-state.ts';

const TABS: readonly { tab: RunTab | null; label: string }[] = [
  { tab: null, label: 'Overview' },
  { tab: 'events', label: 'Events' },
];

export function RunTabs({ view }: { view: ViewState }) {
  return (
    <nav class="tabs" aria-label="Run views">
      {TABS.map(({ tab, label }) => {
        const target: ViewState = { ...view, tab };
        return (
          <a href={hrefOf(target)} onClick={onLinkClick(target)} aria-current={view.tab === tab ? 'page' : undefined} data-tab={tab ?? 'overview'}>
            {label}
          </a>
        );
      })}
    </nav>
  );
}
