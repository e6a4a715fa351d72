// A ready copy of the template for every test, taken from pg-tmpfs's pool (go test, pgx).
//
// Needs: pg-tmpfs started with `template: true` and `pool: N` (CLI: `--template --pool N`),
// PostgreSQL 15+. With the pool off, pgtmpfs.take() fails with "this server has no pool": use
// the CREATE DATABASE … TEMPLATE example instead (../../per-test-clone/go).
//
// DATABASE_URL points at the template database; the copies are taken and given back on the
// maintenance database `postgres` (same host, port, user and password) through one small pgxpool
// per test binary (go test runs a package's tests in one process, t.Parallel ones at once), so a
// take is one round trip. Nothing connects to the template: a session on it makes the ready
// copies stale (take() skips them and the keeper makes new ones).
package example

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	// maintenance: connections to `postgres`, open for the whole test binary.
	maintenance *pgxpool.Pool
	// copyConfig: DATABASE_URL's connection settings; each test sets the database to its copy.
	copyConfig *pgx.ConnConfig
)

func TestMain(m *testing.M) {
	if err := openMaintenance(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	maintenance.Close()
	os.Exit(code)
}

func openMaintenance() error {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return fmt.Errorf("DATABASE_URL is not set: start PostgreSQL with pg-tmpfs first")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return err
	}
	copyConfig = cfg.ConnConfig.Copy()
	cfg.ConnConfig.Database = "postgres"
	maintenance, err = pgxpool.NewWithConfig(context.Background(), cfg)
	return err
}

// newDB takes a copy from the pool for this test and returns a connection to it and its name;
// after the test the connection is closed and the copy given back (the keeper drops it).
func newDB(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	ctx := context.Background()
	var name string
	// Waits up to 10 s (pgtmpfs.take(timeout_ms) to change it) when every copy is taken.
	if err := maintenance.QueryRow(ctx, "SELECT pgtmpfs.take()").Scan(&name); err != nil {
		t.Fatalf("pgtmpfs.take(): %v", err)
	}
	t.Cleanup(func() {
		if _, err := maintenance.Exec(context.Background(), "SELECT pgtmpfs.give_back($1)", name); err != nil {
			t.Errorf("pgtmpfs.give_back(%q): %v", name, err)
		}
	})
	cfg := copyConfig.Copy()
	cfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-registered first: the connection closes before the copy is given back.
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, name
}
