"""A data migration: the categories every installation starts with.

created_at is when the migration ran: a start restored from the schema cache keeps it.
"""

from django.db import migrations
from django.utils import timezone

CATEGORIES = ["books", "games", "tools"]


def seed(apps, schema_editor):
    Category = apps.get_model("inventory", "Category")
    now = timezone.now()
    Category.objects.bulk_create(Category(name=name, created_at=now) for name in CATEGORIES)


def unseed(apps, schema_editor):
    apps.get_model("inventory", "Category").objects.filter(name__in=CATEGORIES).delete()


class Migration(migrations.Migration):
    dependencies = [("inventory", "0002_product_sku")]

    operations = [migrations.RunPython(seed, unseed)]
