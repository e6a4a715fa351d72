/**
 * How docs/schema-cache.md starts each tested framework's example (docs/examples/schema-cache):
 * its init-command and schema-cache-files. tests/e2e/schema-cache-frameworks.test.ts starts the
 * examples with these; tests/unit/examples-doc.test.ts checks that the doc shows the same.
 */

/** A framework's start, as the doc writes it. */
export interface FrameworkStart {
  /** The example's folder under docs/examples/schema-cache, and the doc's section heading's first word. */
  name: 'django' | 'alembic';
  /** The section's heading in docs/schema-cache.md. */
  heading: string;
  initCommand: string;
  schemaCacheFiles: readonly string[];
}

export const DJANGO_START: FrameworkStart = {
  name: 'django',
  heading: '### Django: `migrate`, then `test --keepdb`',
  initCommand: 'python manage.py migrate --noinput',
  schemaCacheFiles: ['**/migrations/*.py', 'requirements.txt', 'shop/settings.py'],
};

export const ALEMBIC_START: FrameworkStart = {
  name: 'alembic',
  heading: '### Alembic (SQLAlchemy): `upgrade head`',
  initCommand: 'alembic upgrade head',
  schemaCacheFiles: ['alembic.ini', 'migrations/env.py', 'migrations/versions/*.py', 'requirements.txt'],
};
