// Types of import-boundaries.js (plain JavaScript: eslint.config.js loads it without a TypeScript loader).
export declare function importProblem(file: string, spec: string): string | null;
export declare const importBoundaries: readonly Record<string, unknown>[];
export declare const ENTRY_POINTS: Readonly<Record<string, readonly string[]>>;
