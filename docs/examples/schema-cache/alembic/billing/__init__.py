import os


def database_url() -> str:
    """DATABASE_URL (set by pg-tmpfs) for SQLAlchemy's psycopg 3 driver."""
    url = os.environ["DATABASE_URL"]
    return url.replace("postgresql://", "postgresql+psycopg://", 1).replace("postgres://", "postgresql+psycopg://", 1)
