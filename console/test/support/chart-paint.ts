// What the insights chart shows where its links are: for each segment link, its box, the canvas's box, and the
// canvas pixel under the link's centre beside the stylesheet's colour of the link's status. A link over its own bar
// reads its status colour there; a link laid over nothing, or over another status's bar, does not.
import type { Page } from 'playwright-core';

export interface SegmentPaint {
  readonly status: string;
  readonly name: string;
  /** The link lies within the canvas. */
  readonly inside: boolean;
  readonly width: number;
  readonly height: number;
  /** The canvas pixel under the link's centre, `rgb(r, g, b, a)` as numbers. */
  readonly pixel: readonly number[];
  /** The status colour the stylesheet gives (light or dark), as `#rrggbb`. */
  readonly colour: string;
}

export async function segmentPaint(page: Page): Promise<SegmentPaint[]> {
  return page.locator('[data-testid=status-chart]').evaluate((chart) => {
    const canvas = chart.querySelector('canvas');
    if (canvas === null) return [];
    const context = canvas.getContext('2d')!;
    const c = canvas.getBoundingClientRect();
    const styles = getComputedStyle(chart);
    return [...chart.querySelectorAll<HTMLAnchorElement>('a.segment')].map((a) => {
      const r = a.getBoundingClientRect();
      const x = Math.floor(((r.left + r.right) / 2 - c.left) * (canvas.width / c.width));
      const y = Math.floor(((r.top + r.bottom) / 2 - c.top) * (canvas.height / c.height));
      const status = a.dataset['status'] ?? '';
      return {
        status,
        name: a.getAttribute('aria-label') ?? '',
        inside: r.left >= c.left && r.right <= c.right && r.top >= c.top && r.bottom <= c.bottom,
        width: r.width,
        height: r.height,
        pixel: [...context.getImageData(x, y, 1, 1).data],
        colour: styles.getPropertyValue(`--${status.toLowerCase()}`).trim(),
      };
    });
  });
}

/** `#c62828` → [198, 40, 40, 255]. */
export function rgbaOf(hex: string): number[] {
  return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).concat(255);
}

/** Every channel within `tolerance` (anti-aliasing at a bar's edge stays away from its centre). */
export function sameColour(a: readonly number[], b: readonly number[], tolerance = 8): boolean {
  return a.length === b.length && a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);
}

export interface RowBarPaint {
  readonly name: string;
  readonly width: number;
  /** The canvas pixel just inside the bar's top edge, at its middle: only the p99 bar (the tallest) is there. */
  readonly edge: readonly number[];
  /** The canvas pixel at the bar's start, on its middle line: every bar starts at zero there, the p50 bar on top. */
  readonly start: readonly number[];
  readonly p99: string;
  readonly p50: string;
}

/** The duration chart's row links, and what the canvas shows under them. */
export async function rowBarPaint(page: Page): Promise<RowBarPaint[]> {
  return page.locator('[data-testid=duration-chart]').evaluate((chart) => {
    const canvas = chart.querySelector('canvas');
    if (canvas === null) return [];
    const context = canvas.getContext('2d')!;
    const c = canvas.getBoundingClientRect();
    const pixel = (x: number, y: number): number[] => [...context.getImageData(Math.floor((x - c.left) * (canvas.width / c.width)), Math.floor((y - c.top) * (canvas.height / c.height)), 1, 1).data];
    const styles = getComputedStyle(chart);
    return [...chart.querySelectorAll<HTMLAnchorElement>('a.row-bar')].map((a) => {
      const r = a.getBoundingClientRect();
      return {
        name: a.dataset['name'] ?? '',
        width: r.width,
        edge: pixel((r.left + r.right) / 2, r.top + 1.5),
        start: pixel(r.left + 1.5, (r.top + r.bottom) / 2),
        p99: styles.getPropertyValue('--faulted').trim(),
        p50: styles.getPropertyValue('--completed').trim(),
      };
    });
  });
}
