// A payload as collapsible, pretty-printed JSON (native <details>: keyboard and screen readers for free) with a
// copy button for the whole text.
import { useState } from 'preact/hooks';
import { parseJson } from './format.ts';

export function JsonBlock({ label, text }: { label: string; text: string | null }) {
  if (text === null) {
    return (
      <section class="json-block">
        <h3>{label}</h3>
        <p class="muted">none</p>
      </section>
    );
  }
  const parsed = parseJson(text);
  const pretty = parsed.ok ? JSON.stringify(parsed.value, null, 2) : text;
  return (
    <section class="json-block">
      <div class="json-head">
        <h3>{label}</h3>
        <CopyButton text={pretty} label={`Copy ${label.toLowerCase()}`} />
      </div>
      <div class="json" data-testid={`json-${label.toLowerCase().replace(/\s+/g, '-')}`}>
        {parsed.ok ? <JsonNode value={parsed.value} depth={0} /> : <pre>{text}</pre>}
      </div>
    </section>
  );
}

function JsonNode({ value, depth, name }: { value: unknown; depth: number; name?: string }) {
  const key = name === undefined ? null : <span class="json-key">{JSON.stringify(name)}: </span>;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="json-leaf">
        {key}
        <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div class="json-leaf">
        {key}
        {open}
        {close}
      </div>
    );
  }
  return (
    <details class="json-node" open={depth < 3}>
      <summary>
        {key}
        {open}
        <span class="json-summary">
          {' '}
          {entries.length} {Array.isArray(value) ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'} {close}
        </span>
      </summary>
      <div class="json-children">
        {entries.map(([k, v]) => (
          <JsonNode value={v} depth={depth + 1} {...(k === undefined ? {} : { name: k })} />
        ))}
      </div>
      <div>{close}</div>
    </details>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      class="copy secondary"
      aria-label={label}
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
        setTimeout(() => setState('idle'), 2000);
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}
