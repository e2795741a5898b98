"""Importing a shop's own product feed into a verishop catalog (issue 21).

Readers (`merchant`, `shopify`, `mapped`) stream a source and yield one `FeedRow` per record, or a
`Refusal` naming the record, its id and the reason; `write.import_catalog` turns the rows into a
catalog with the generated catalog's schema and content hash, written aside and renamed.

Exceptions:

    ImportFailed        nothing was written (strict refusal, unreadable source, no products)
    ├── MappingError    the --mapping file is invalid (its message names the key)
    └── PolicyFileError the --policy file is invalid (its message names the key)
"""


class ImportFailed(Exception):
    """The import wrote nothing; the message says why."""


class MappingError(ImportFailed):
    """The mapping file is invalid."""


class PolicyFileError(ImportFailed):
    """The policy file is invalid."""
