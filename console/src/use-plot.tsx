// A uPlot chart in a Preact component: drawn into the host element as wide as it (following its width: window
// resized, phone rotated), with a layer of links rendered into uPlot's `over` element after every draw (the boxes
// move when the width changes). Redrawn from scratch when `key` changes: the parent re-renders far more often than
// what is drawn changes. uPlot is loaded on the first chart (its own hashed script, ~22 KB gzipped): the runs list,
// the page most visits open, does not wait for a library it never uses.
import { render } from 'preact';
import type { RefObject, VNode } from 'preact';
import { useEffect } from 'preact/hooks';
import type uPlot from 'uplot';

export type UPlot = typeof uPlot;

export interface Plot {
  readonly options: Omit<uPlot.Options, 'width' | 'height'>;
  readonly data: uPlot.AlignedData;
  /** The link layer for the chart as just drawn. */
  readonly links: (chart: uPlot) => VNode;
}

let loading: Promise<UPlot> | undefined;

function loadUPlot(): Promise<UPlot> {
  loading ??= import('uplot').then(
    (module) => module.default,
    (error: unknown) => {
      // A console deployed anew since this page loaded no longer has the old script: the next chart tries again.
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Draws the chart `make` describes; returns the function that takes it down. */
function draw(UPlot: UPlot, el: HTMLElement, height: number, plot: Plot): () => void {
  const layer = document.createElement('div');
  const showLinks = (chart: uPlot): void => {
    if (layer.parentElement !== chart.over) chart.over.append(layer);
    render(plot.links(chart), layer);
  };
  const hooks = { ...plot.options.hooks, draw: [...(plot.options.hooks?.draw ?? []), showLinks] };
  const chart = new UPlot({ ...plot.options, hooks, width: el.clientWidth, height }, plot.data, el);
  let width = el.clientWidth;
  const observer = new ResizeObserver(() => {
    if (el.clientWidth === width || el.clientWidth === 0) return;
    width = el.clientWidth;
    chart.setSize({ width, height });
  });
  observer.observe(el);
  return () => {
    observer.disconnect();
    render(null, layer);
    chart.destroy();
  };
}

export function usePlot(host: RefObject<HTMLDivElement>, key: string, height: number, make: (el: HTMLElement, UPlot: UPlot) => Plot): void {
  useEffect(() => {
    const el = host.current!;
    let takeDown: (() => void) | null = null;
    let gone = false;
    loadUPlot().then(
      (UPlot) => {
        if (!gone) takeDown = draw(UPlot, el, height, make(el, UPlot));
      },
      () => {
        if (!gone) el.textContent = 'The chart could not be loaded: reload the page.';
      },
    );
    return () => {
      gone = true;
      takeDown?.();
    };
    // `make` is a new function on every render; `key` says when what it draws changed.
  }, [key, height]);
}
