import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      // The benchmark's own code (its reports, results, undo list): pure logic, fast like unit.
      { test: { name: 'bench', include: ['bench/tests/**/*.test.ts'] } },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          // Real Docker and real PostgreSQL: one file at a time on a 2-core machine.
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
