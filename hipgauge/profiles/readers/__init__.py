"""One reader per profile format; each returns a ``hipgauge.model.Profile``."""
