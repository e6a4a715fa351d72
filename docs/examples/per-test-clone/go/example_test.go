// Each test gets its own copy of the template: both inserts of the same (unique) email succeed,
// and each test counts one row, even with the tests running in parallel.
//
// Run: eval "$(pg-tmpfs up)" && (cd docs/examples/per-test-clone/go && go test ./...)
package example

import (
	"slices"
	"strings"
	"testing"
)

func TestTemplateSchemaIsThere(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	rows, err := db.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tables, []string{"posts", "users"}) {
		t.Fatalf("tables = %v, want [posts users]", tables)
	}
}

func TestDatabaseOfItsOwn(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "testdb_tpl_") || !strings.Contains(name, "_inst_") {
		t.Fatalf("current_database() = %q, want a pgtestdb instance", name)
	}
}

// insertAndCount inserts the same email as the other test and counts the users.
func insertAndCount(t *testing.T) {
	db := newDB(t)
	if _, err := db.Exec("INSERT INTO users (email) VALUES ('alice@example.com')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM users").Scan(&n); err != nil {
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
