// A chart's marks as real links laid over uPlot's canvas, each at the box uPlot drew its mark in: the drill-down of a
// bar stays a link (open in a new tab, copy the address) and, where the chart is the only way to it, one that Tab
// reaches and a screen reader names. Rendered into uPlot's `over` element, so the pointer's moves still reach uPlot
// (its cursor line) through them. Boxes go through the CSSOM (Preact sets `el.style.left`…): the CSP forbids style
// attributes and inline <style>, not the CSSOM.
import { hrefOf, onLinkClick } from './navigation.ts';
import type { ViewState } from './view-state.ts';

/** Where a mark was drawn, in CSS pixels from the plot area's top left (uPlot's `over` element). */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface LinkBox extends Box {
  readonly view: ViewState;
  /** The accessible name, also the tooltip. */
  readonly name: string;
  readonly className: string;
  /** `data-*` attributes (what a test or a script reads back). */
  readonly data: Readonly<Record<string, string>>;
}

/** A bar drawn by uPlot's bars builder (`each`: canvas pixels from the canvas's corner) in the `over` element's pixels. */
export function overBox(bbox: { left: number; top: number }, ratio: number, left: number, top: number, width: number, height: number): Box {
  return { left: (left - bbox.left) / ratio, top: (top - bbox.top) / ratio, width: width / ratio, height: height / ratio };
}

interface ChartLinksProps {
  readonly links: readonly LinkBox[];
  /** The group's accessible name. */
  readonly label: string;
  /** False where the same links are in a table beside the chart: the chart's then stay out of Tab and screen readers. */
  readonly focusable: boolean;
}

export function ChartLinks({ links, label, focusable }: ChartLinksProps) {
  return (
    <div class="chart-links" {...(focusable ? { role: 'group', 'aria-label': label } : { 'aria-hidden': 'true' })}>
      {links.map(({ view, name, className, data, left, top, width, height }) => (
        <a
          href={hrefOf(view)}
          onClick={onLinkClick(view)}
          aria-label={name}
          title={name}
          class={className}
          {...(focusable ? {} : { tabIndex: -1 })}
          {...Object.fromEntries(Object.entries(data).map(([key, value]) => [`data-${key}`, value]))}
          style={{ left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` }}
        />
      ))}
    </div>
  );
}
