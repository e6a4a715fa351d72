/**
 * The project's version, as in package.json (tests/unit/version.test.ts proves they agree): the
 * CLI's `--version`, the action's job summary. Kept here rather than read from package.json at
 * run time, so the bundle needs no file next to it.
 */
export const VERSION = '1.0.0';
