"""translate stage."""
