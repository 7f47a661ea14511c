"""profiles stage."""
