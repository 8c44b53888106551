// The StringFilterInput operators that take one text value. Each says whether its value is normalized like the
// field's own values (a taskPosition loses its leading '/') — an operator anchored at the start is, one that may
// match inside or at the end is not — and whether the backends match it as a pattern (priced as one, filter-work.ts).
// `like`, `in` and `isNull` have shapes of their own (StringPredicate in reader.ts).
export interface TextOperatorRule {
  readonly normalized: boolean;
  readonly pattern: boolean;
}

export const TEXT_OPERATORS = {
  eq: { normalized: true, pattern: false },
  ne: { normalized: true, pattern: false },
  contains: { normalized: false, pattern: true },
  startsWith: { normalized: true, pattern: true },
  endsWith: { normalized: false, pattern: true },
} as const satisfies Readonly<Record<string, TextOperatorRule>>;

export type TextOperator = keyof typeof TEXT_OPERATORS;

export const TEXT_OPERATOR_NAMES = Object.keys(TEXT_OPERATORS) as readonly TextOperator[];

/** The other StringFilterInput operators. */
export const SHAPED_STRING_OPERATORS = ['like', 'in', 'isNull'] as const;

export function isTextOperator(name: string): name is TextOperator {
  return Object.hasOwn(TEXT_OPERATORS, name);
}
