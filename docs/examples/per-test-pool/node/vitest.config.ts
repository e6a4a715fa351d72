// Keeps this example out of the repository's own vitest projects: run vitest from this folder.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['*.test.ts'] } });
