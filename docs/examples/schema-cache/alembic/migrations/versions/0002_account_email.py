"""account email

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("email", sa.String(320), nullable=False))
    op.create_unique_constraint("accounts_email_key", "accounts", ["email"])


def downgrade() -> None:
    op.drop_constraint("accounts_email_key", "accounts")
    op.drop_column("accounts", "email")
