// The runs list's conditions that only a drill-down from the insights page sets (an error's type and title, a task
// that faulted), shown above the list with a button to remove each: the form has no field for them.
import { setList } from './run-filters.tsx';
import type { ListView, ViewState } from './view-state.ts';

const CONDITIONS: readonly { key: 'errorType' | 'errorTitle' | 'failedTask'; label: string }[] = [
  { key: 'errorType', label: 'Error type is' },
  { key: 'errorTitle', label: 'Error title is' },
  { key: 'failedTask', label: 'A task faulted at' },
];

export function DrillConditions({ view }: { view: ViewState }) {
  const set = CONDITIONS.filter((c) => view.list[c.key] !== '');
  if (set.length === 0) return null;
  return (
    <ul class="drill" aria-label="Conditions from the insights page" data-testid="drill-conditions">
      {set.map((c) => (
        <li>
          {c.label} <code>{view.list[c.key]}</code>
          <button type="button" class="secondary" aria-label={`Remove: ${c.label} ${view.list[c.key]}`} onClick={() => setList(view, { [c.key]: '' } as Partial<ListView>)}>
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}
