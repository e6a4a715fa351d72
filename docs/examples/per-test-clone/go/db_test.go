// A fresh database for every test with pgtestdb (github.com/peterldowns/pgtestdb).
//
// pgtestdb makes and keeps its own template (named after a hash of the migrator and its test
// role) by running the Migrator once, then clones it for each test and drops the clone when the
// test passes. It only needs to reach the server: it does not use the template that pg-tmpfs's
// `template: true` prepares. The connection comes from the PG* variables that pg-tmpfs exports.
package example

import (
	"context"
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/peterldowns/pgtestdb"
	"github.com/peterldowns/pgtestdb/migrators/common"
)

// schemaMigrator builds pgtestdb's template by running one SQL file.
type schemaMigrator struct{ path string }

// Hash names the template: a changed schema file makes a new one.
func (m schemaMigrator) Hash() (string, error) { return common.HashFile(m.path) }

// Migrate runs the schema file in the new template database (once per schema).
func (m schemaMigrator) Migrate(ctx context.Context, db *sql.DB, _ pgtestdb.Config) error {
	schema, err := os.ReadFile(m.path)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, string(schema))
	return err
}

func getenv(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// newDB returns a connection to a fresh copy of the migrated template, for this test only.
func newDB(t *testing.T) *sql.DB {
	t.Helper()
	conf := pgtestdb.Config{
		DriverName: "pgx",
		Host:       getenv("PGHOST", "127.0.0.1"),
		Port:       getenv("PGPORT", "5432"),
		User:       getenv("PGUSER", "postgres"),
		Password:   getenv("PGPASSWORD", "postgres"),
		Database:   "postgres", // the maintenance database: pgtestdb creates its own
		Options:    "sslmode=disable",
	}
	return pgtestdb.New(t, conf, schemaMigrator{path: "../schema.sql"})
}
