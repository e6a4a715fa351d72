"""The example's tests, against the database of DATABASE_URL (migrated, or restored by the
schema cache), each in a transaction rolled back at its end."""

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from billing import database_url
from billing.models import Account, Plan


@pytest.fixture
def session():
    engine = create_engine(database_url())
    with engine.connect() as connection, connection.begin() as transaction:
        yield Session(bind=connection, join_transaction_mode="create_savepoint")
        transaction.rollback()
    engine.dispose()


def test_the_data_migration_seeded_the_plans(session):
    assert session.scalars(select(Plan.name).order_by(Plan.name)).all() == ["free", "team"]


def test_an_account_has_a_plan_and_a_unique_email(session):
    team = session.scalars(select(Plan).where(Plan.name == "team")).one()
    session.add(Account(name="Ada", email="ada@example.com", plan_id=team.id))
    session.flush()
    assert session.scalars(select(Account.email)).all() == ["ada@example.com"]
