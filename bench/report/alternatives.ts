/**
 * The line under a table with "services, tuned (2026)" rows (issue #36): which image and
 * PostgreSQL version ran, what the alternative is and since when GitHub allows it, and the
 * command that repeats the section.
 */
import type { CaseResult, Section } from '../lib/results.js';
import { TUNED_KEY, TUNED_LABEL, TUNED_SOURCE } from '../lib/tuned-service.js';

/** Whether a case is a row of the tuned services block (its variant key starts with `service-tuned`). */
export function isTuned(c: CaseResult): boolean {
  return (c.id.split('/').at(-1) ?? '').replace(/^docker-/, '').startsWith(TUNED_KEY);
}

/**
 * The tuned block's line for `section`'s table, from the first run's details (image, imageVersion,
 * serverVersion: bench/lib/tuned-service.ts tunedDetails); '' when the table has no such row.
 */
export function tunedNote(sc: readonly CaseResult[], section: Section): string {
  const tuned = sc.filter(isTuned);
  if (!tuned.length) return '';
  const d = tuned.flatMap((c) => c.details).find((x) => typeof x.serverVersion === 'string');
  const image = typeof d?.image === 'string' ? d.image : '?';
  const version = typeof d?.serverVersion === 'string' ? d.serverVersion : '?';
  // The image's package version, unless server_version already names it (Debian's builds do).
  const pkgVersion = typeof d?.imageVersion === 'string' ? d.imageVersion : '';
  const pkg = pkgVersion && !version.includes(pkgVersion) ? `, package ${pkgVersion}` : '';
  return (
    `${TUNED_LABEL}: image \`${image}\` (PostgreSQL ${version}${pkg}) with the job-on-the-runner block of ` +
    `templates/github/services.yaml (PGDATA on tmpfs, durability off by \`command\`, a health check, then its wait step); ` +
    `${TUNED_SOURCE}; created and started with the runner's own \`docker\` arguments (bench/lib/tuned-service.ts). ` +
    `Repeat: \`npm run bench -- --only ${section} --image ${image}\`.`
  );
}
