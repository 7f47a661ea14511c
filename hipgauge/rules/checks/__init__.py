"""One module per rule (``hgNNN_topic.py``); the module docstring is the rule's documentation."""
