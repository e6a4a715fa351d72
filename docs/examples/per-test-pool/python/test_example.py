"""Each test gets its own copy of the template from the pool: both inserts of the same (unique)
email succeed, and each test counts one row. The same 4 tests as ../../per-test-clone/python.

Run, against a server started with
`pg-tmpfs up --database app --init docs/examples/per-test-clone/schema.sql --template --pool 4`:
  DATABASE_URL=postgresql://postgres:postgres@127.0.0.1:5432/app pytest docs/examples/per-test-pool/python
"""

import os
from urllib.parse import unquote, urlsplit


def test_the_template_schema_is_there(db):
    rows = db.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
    ).fetchall()
    assert [r[0] for r in rows] == ["posts", "users"]


def test_a_test_runs_in_a_database_of_its_own(db, database_name):
    (name,) = db.execute("SELECT current_database()").fetchone()
    assert name == database_name
    assert name != unquote(urlsplit(os.environ["DATABASE_URL"]).path[1:])


def test_first_insert_sees_only_its_own_row(db):
    db.execute("INSERT INTO users (email) VALUES ('alice@example.com')")
    assert db.execute("SELECT count(*) FROM users").fetchone() == (1,)


def test_second_insert_of_the_same_email_sees_only_its_own_row(db):
    db.execute("INSERT INTO users (email) VALUES ('alice@example.com')")
    assert db.execute("SELECT count(*) FROM users").fetchone() == (1,)
