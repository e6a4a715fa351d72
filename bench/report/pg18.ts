/**
 * Section 7 (pg18): PostgreSQL 18's checksums and io_method variants relative to 18's defaults.
 */
import type { CaseResult } from '../lib/results.js';
import { relativeTable } from './format.js';

/** Section 7's table: every variant relative to the first column, 18's defaults. */
export function renderPg18(sc: readonly CaseResult[]): string {
  return relativeTable(sc, `Each variant is shown with its speed relative to 18’s defaults (below 1× = slower).`);
}
