"""Where benchmark data comes from: a local data dir or the pinned online release, schemas checked
before any model time, provenance on every doc (``sources``)."""
