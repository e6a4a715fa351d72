"""seed plans: a data migration

created_at is when the revision ran: a start restored from the schema cache keeps it.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "INSERT INTO plans (name, monthly_price, created_at) "
        "VALUES ('free', 0, clock_timestamp()), ('team', 12.00, clock_timestamp())"
    )


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM plans WHERE name IN ('free', 'team')"))
