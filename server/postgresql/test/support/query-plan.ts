// What the query-plan tests read of PostgreSQL's EXPLAIN (FORMAT JSON): node types, indexes, and the two problems a
// plan of a page must not have at 100,000 runs (a sequential scan, a sort of far more rows than a page).
export interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Plan Rows': number;
  readonly 'Presorted Key'?: readonly string[];
  readonly Plans?: readonly PlanNode[];
}

/** What is wrong with a plan: every sequential scan and every sort of more than `maxSortedRows` rows. */
export function planProblems(node: PlanNode, maxSortedRows: number): string[] {
  const problems: string[] = [];
  if (node['Node Type'] === 'Seq Scan') problems.push(`Seq Scan on ${node['Relation Name'] ?? '?'}`);
  // An incremental sort after a (nearly unique) timestamp or the id sorts groups of a row or two; after any other
  // key its groups are as large as that key's values are frequent: counted like a full sort.
  const smallGroups = node['Node Type'] === 'Incremental Sort' && (node['Presorted Key'] ?? []).some((k) => /start_time|end_time|last_update|\bid\b/.test(k));
  if ((node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') && !smallGroups) {
    const input = node.Plans?.[0]?.['Plan Rows'] ?? node['Plan Rows'];
    if (input > maxSortedRows) problems.push(`${node['Node Type']} of ${input} rows`);
  }
  for (const child of node.Plans ?? []) problems.push(...planProblems(child, maxSortedRows));
  return problems;
}

export function nodeTypesOf(node: PlanNode): string[] {
  return [node['Node Type'], ...(node.Plans ?? []).flatMap(nodeTypesOf)];
}

export function indexesOf(node: PlanNode): string[] {
  return [...(node['Index Name'] === undefined ? [] : [node['Index Name']]), ...(node.Plans ?? []).flatMap(indexesOf)];
}
