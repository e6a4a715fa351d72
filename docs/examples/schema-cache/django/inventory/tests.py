from decimal import Decimal

from django.test import TestCase

from inventory.models import Category, Product


class InventoryTests(TestCase):
    def test_the_data_migration_seeded_the_categories(self):
        self.assertEqual(sorted(Category.objects.values_list("name", flat=True)), ["books", "games", "tools"])

    def test_a_product_has_a_unique_sku(self):
        books = Category.objects.get(name="books")
        Product.objects.create(name="Dune", price=Decimal("9.99"), category=books, sku="B-1")
        self.assertEqual(Product.objects.get(sku="B-1").category.name, "books")

