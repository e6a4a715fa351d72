// Each test gets its own copy of the template from the pool: both inserts of the same (unique)
// email succeed, and each test counts one row, even with the tests running in parallel. The same
// 4 tests as ../../per-test-clone/go.
//
// Run: eval "$(pg-tmpfs up --database app --init docs/examples/per-test-clone/schema.sql --template --pool 4)" &&
// (cd docs/examples/per-test-pool/go && go test ./...)
package example

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestTemplateSchemaIsThere(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	rows, err := db.Query(context.Background(), "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tables, []string{"posts", "users"}) {
		t.Fatalf("tables = %v, want [posts users]", tables)
	}
}

func TestDatabaseOfItsOwn(t *testing.T) {
	t.Parallel()
	db, taken := newDB(t)
	var name string
	if err := db.QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != taken || name == copyConfig.Database {
		t.Fatalf("current_database() = %q, want the copy taken, %q, not the template", name, taken)
	}
}

// insertAndCount inserts the same email as the other test and counts the users.
func insertAndCount(t *testing.T) {
	db, _ := newDB(t)
	ctx := context.Background()
	if _, err := db.Exec(ctx, "INSERT INTO users (email) VALUES ('alice@example.com')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM users").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
}

func TestFirstInsertSeesOnlyItsOwnRow(t *testing.T) {
	t.Parallel()
	insertAndCount(t)
}

func TestSecondInsertOfTheSameEmailSeesOnlyItsOwnRow(t *testing.T) {
	t.Parallel()
	insertAndCount(t)
}
