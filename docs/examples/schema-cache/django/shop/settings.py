"""Settings of the example: the database comes from DATABASE_URL, which pg-tmpfs sets.

This file is in schema-cache-files: INSTALLED_APPS, DEFAULT_AUTO_FIELD and AUTH_USER_MODEL
decide which migrations run and what they create.
"""

import os
from urllib.parse import unquote, urlsplit

url = urlsplit(os.environ["DATABASE_URL"])

SECRET_KEY = "only-for-the-example"
USE_TZ = True
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "inventory",
]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(url.path[1:]),
        "USER": unquote(url.username or ""),
        "PASSWORD": unquote(url.password or ""),
        "HOST": url.hostname,
        "PORT": url.port,
        "TEST": {
            # With TEST_DATABASE set to the database pg-tmpfs made (`database:`), `manage.py test
            # --keepdb` runs the tests in it: migrated by init-command, or restored by the schema
            # cache. Unset, Django makes test_<NAME> and migrates it again.
            "NAME": os.environ.get("TEST_DATABASE") or None,
        },
    }
}
