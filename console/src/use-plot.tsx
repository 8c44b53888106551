// A uPlot chart in a Preact component: drawn into the host element as wide as it (following its width: window
// resized, phone rotated), with a layer of links rendered into uPlot's `over` element after every draw (the boxes
// move when the width changes). Redrawn from scratch when `key` changes: the parent re-renders far more often than
// what is drawn changes.
import { render } from 'preact';
import type { RefObject, VNode } from 'preact';
import { useEffect } from 'preact/hooks';
import uPlot from 'uplot';

export interface Plot {
  readonly options: Omit<uPlot.Options, 'width' | 'height'>;
  readonly data: uPlot.AlignedData;
  /** The link layer for the chart as just drawn. */
  readonly links: (chart: uPlot) => VNode;
}

export function usePlot(host: RefObject<HTMLDivElement>, key: string, height: number, make: (el: HTMLElement) => Plot): void {
  useEffect(() => {
    const el = host.current!;
    const plot = make(el);
    const layer = document.createElement('div');
    const showLinks = (chart: uPlot): void => {
      if (layer.parentElement !== chart.over) chart.over.append(layer);
      render(plot.links(chart), layer);
    };
    const hooks = { ...plot.options.hooks, draw: [...(plot.options.hooks?.draw ?? []), showLinks] };
    const chart = new uPlot({ ...plot.options, hooks, width: el.clientWidth, height }, plot.data, el);
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
    // `make` is a new function on every render; `key` says when what it draws changed.
  }, [key, height]);
}
