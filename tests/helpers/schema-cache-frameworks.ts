/**
 * How docs/schema-cache.md starts each tested framework's example (docs/examples/schema-cache):
 * its database, init-command and schema-cache-files. tests/e2e/schema-cache-frameworks.test.ts starts the
 * examples with these; tests/unit/examples-doc.test.ts checks that the doc shows the same.
 */

/** A framework's start, as the doc writes it. */
export interface FrameworkStart {
  /** The example's folder under docs/examples/schema-cache, and the doc's section heading's first word. */
  name: 'django' | 'alembic' | 'rails';
  /** The section's heading in docs/schema-cache.md. */
  heading: string;
  /** The `database` input. */
  database: string;
  /** init-command in the CLI line, as tested. */
  initCommand: string;
  /** init-command in the workflow, when it differs (the version most users have, not runnable here). */
  workflowInitCommand?: string;
  schemaCacheFiles: readonly string[];
}

export const DJANGO_START: FrameworkStart = {
  name: 'django',
  heading: '### Django: `migrate`, then `test --keepdb`',
  database: 'app',
  initCommand: 'python manage.py migrate --noinput',
  schemaCacheFiles: ['**/migrations/*.py', 'requirements.txt', 'shop/settings.py'],
};

export const ALEMBIC_START: FrameworkStart = {
  name: 'alembic',
  heading: '### Alembic (SQLAlchemy): `upgrade head`',
  database: 'app',
  initCommand: 'alembic upgrade head',
  schemaCacheFiles: ['alembic.ini', 'migrations/env.py', 'migrations/versions/*.py', 'requirements.txt'],
};

/**
 * Rails 6.1 (Debian 12's, the only Rails this machine can install) is tested with
 * `db:schema:load db:seed`, what `db:prepare` does from 7.1 on given an empty database; the
 * workflow shows `db:prepare`.
 */
export const RAILS_START: FrameworkStart = {
  name: 'rails',
  heading: '### Rails: `db:prepare`',
  database: 'app_test',
  initCommand: 'bin/rails db:schema:load db:seed',
  workflowInitCommand: 'bin/rails db:prepare',
  schemaCacheFiles: ['db/migrate/**', 'db/schema.rb', 'db/seeds.rb', 'Gemfile.lock'],
};
