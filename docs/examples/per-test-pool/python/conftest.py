"""A ready copy of the template for every test, taken from pg-tmpfs's pool (pytest).

Needs: pg-tmpfs started with `template: true` and `pool: N` (CLI: `--template --pool N`),
PostgreSQL 15+. With the pool off, `pgtmpfs.take()` fails with "this server has no pool": use the
CREATE DATABASE ... TEMPLATE example instead (../../per-test-clone/python/conftest.py).

DATABASE_URL points at the template database; the copies are taken and given back on the
maintenance database `postgres` (same host, port, user and password), over one connection per
test session (per worker with pytest-xdist), so a take is one round trip. Nothing connects to the
template: a session on it makes the ready copies stale (take() skips them and the keeper makes
new ones).
"""

import os
from urllib.parse import quote, urlsplit

import psycopg
import pytest

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    raise RuntimeError("DATABASE_URL is not set: start PostgreSQL with pg-tmpfs first")


def url_for(database: str) -> str:
    """DATABASE_URL with another database name."""
    return urlsplit(DATABASE_URL)._replace(path="/" + quote(database, safe="")).geturl()


@pytest.fixture(scope="session")
def maintenance():
    """A connection to `postgres` for the whole session; autocommit, so no take waits in a transaction."""
    with psycopg.connect(url_for("postgres"), autocommit=True) as conn:
        yield conn


@pytest.fixture
def database_name(maintenance):
    """A copy taken from the pool for this test, given back after it (the keeper drops it)."""
    # Waits up to 10 s (pgtmpfs.take(timeout_ms) to change it) when every copy is taken.
    (name,) = maintenance.execute("SELECT pgtmpfs.take()").fetchone()
    try:
        yield name
    finally:
        maintenance.execute("SELECT pgtmpfs.give_back(%s)", (name,))


@pytest.fixture
def db(database_name):
    """A connection to this test's own copy, closed before the copy is given back."""
    with psycopg.connect(url_for(database_name)) as conn:
        yield conn
