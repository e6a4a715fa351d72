"""Each test gets its own copy of the template: both inserts of the same (unique) email succeed,
and each test counts one row.

Run: DATABASE_URL=postgresql://postgres:postgres@127.0.0.1:5432/app pytest docs/examples/per-test-clone/python
"""


def test_the_template_schema_is_there(db):
    rows = db.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
    ).fetchall()
    assert [r[0] for r in rows] == ["posts", "users"]


def test_a_test_runs_in_a_database_of_its_own(db):
    (name,) = db.execute("SELECT current_database()").fetchone()
    assert name.startswith("test_")


def test_first_insert_sees_only_its_own_row(db):
    db.execute("INSERT INTO users (email) VALUES ('alice@example.com')")
    assert db.execute("SELECT count(*) FROM users").fetchone() == (1,)


def test_second_insert_of_the_same_email_sees_only_its_own_row(db):
    db.execute("INSERT INTO users (email) VALUES ('alice@example.com')")
    assert db.execute("SELECT count(*) FROM users").fetchone() == (1,)
