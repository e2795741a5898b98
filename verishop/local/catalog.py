"""The in-process shop's catalog reader. It lives in the scenarios layer (the import's table of
environments reads catalogs with it too, and scenarios do not import verishop.local); this name
stays for the code that imports it from here."""

from verishop.scenarios.catalog.cached_reader import CachedCatalogReader

__all__ = ["CachedCatalogReader"]
