"""A fresh database for every test, copied from the template that pg-tmpfs prepared (pytest).

DATABASE_URL points at the template database (the action's `database:` input, marked a
template by `template: true`); TEMPLATE_DATABASE overrides its name. The copies are made
from the maintenance database `postgres`, since PostgreSQL refuses to copy a database that
has open connections.
"""

import os
import secrets
from urllib.parse import quote, unquote, urlsplit

import psycopg
import pytest
from psycopg import sql

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    raise RuntimeError("DATABASE_URL is not set: start PostgreSQL with pg-tmpfs first")


def url_for(database: str) -> str:
    """DATABASE_URL with another database name."""
    return urlsplit(DATABASE_URL)._replace(path="/" + quote(database, safe="")).geturl()


TEMPLATE = os.environ.get("TEMPLATE_DATABASE") or unquote(urlsplit(DATABASE_URL).path[1:])
MAINTENANCE_URL = url_for("postgres")


def admin(statement: sql.Composable) -> None:
    """Runs one statement on the maintenance database (CREATE/DROP DATABASE need autocommit)."""
    with psycopg.connect(MAINTENANCE_URL, autocommit=True) as conn:
        conn.execute(statement)


@pytest.fixture
def database_url():
    """A copy of the template made for this test (milliseconds on tmpfs), dropped after it."""
    name = f"test_{os.getpid()}_{secrets.token_hex(4)}"
    # STRATEGY FILE_COPY (PostgreSQL 15+) copies the files: the fastest way on tmpfs. On 14 and
    # older, leave the clause out (a file copy is all they do).
    admin(
        sql.SQL("CREATE DATABASE {} TEMPLATE {} STRATEGY FILE_COPY").format(
            sql.Identifier(name), sql.Identifier(TEMPLATE)
        )
    )
    try:
        yield url_for(name)
    finally:
        # FORCE (PostgreSQL 13+) ends connections the test left open.
        admin(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def db(database_url):
    """A connection to this test's own database."""
    with psycopg.connect(database_url) as conn:
        yield conn
