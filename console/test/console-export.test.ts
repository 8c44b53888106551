// The runs list's export in real Chromium against the real server on each backend, PostgreSQL and OpenSearch (no
// sign-in: a plain link; the sign-in suite covers the fetched download with the session's token): CSV and JSONL
// downloads hold exactly the runs the API matches for the list's filters, every one of them (not only the page), and
// end with the complete trailer.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.js';
import { consoleBackends } from './support/backends.js';

const LAPTOP = { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', colorScheme: 'light' } as const;

/** RFC 4180 records (quoted cells may hold commas, quotes and line breaks). */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = (): void => {
    record.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (quoted) {
      if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      endCell();
    } else if (c === '\r' && text[i + 1] === '\n') {
      endCell();
      records.push(record);
      record = [];
      i++;
    } else {
      cell += c;
    }
  }
  return records;
}

const backends = await consoleBackends();

describe.skipIf(backends.length === 0).each(backends.length === 0 ? ['postgresql' as const] : backends)('runs list export in Chromium (%s)', (backend) => {
  const suite = browserSuite({ backend });
  const { opened } = suite;
  const open = suite.open;
  const ids = async (filter: Record<string, unknown>): Promise<string[]> =>
    (await suite.server.graphql<{ r: { id: string }[] }>('query R($f: WorkflowInstanceFilterInput) { r: getWorkflowInstances(filter: $f, limit: 1000) { id } }', { f: filter })).r.map((r) => r.id).sort();
  const download = async (page: Page, format: string): Promise<string> => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').locator(`[data-format=${format}]`).click()]);
    return readFileSync((await file.path()) ?? '', 'utf8');
  };

  it('exports every run matching the filters as CSV and as JSONL, not only the page shown', async () => {
    const g = await open(LAPTOP);
    const { page } = g;
    await page.goto(`${suite.server.baseUrl}/?status=COMPLETED,FAULTED&size=10`);
    await page.locator('[data-testid=runs] tbody tr').first().waitFor();
    const expected = await ids({ status: { in: ['COMPLETED', 'FAULTED'] } });
    expect(expected.length).toBeGreaterThan(10);
    await page.getByTestId('export').scrollIntoViewIfNeeded();
    await page.screenshot({ path: suite.artifact(`runs-list-export`) });

    const csv = csvRecords(await download(page, 'csv'));
    expect(csv[0]?.slice(0, 5)).toEqual(['id', 'name', 'namespace', 'version', 'status']);
    const rows = csv.slice(1, -1);
    expect(rows.map((r) => r[0]).sort()).toEqual(expected);
    expect(csv.at(-1)?.slice(0, 2)).toEqual(['#export-complete', String(expected.length)]);

    const lines = (await download(page, 'jsonl')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.slice(0, -1).map((l) => l['id']).sort()).toEqual(expected);
    expect(lines.at(-1)).toEqual({ export: { complete: true, rows: expected.length } });
  }, 90_000);

  it('made no request beyond 127.0.0.1 and logged no error', () => {
    expect(opened.flatMap((g) => g.requested).filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(opened.flatMap((g) => g.problems)).toEqual([]);
  });
});
