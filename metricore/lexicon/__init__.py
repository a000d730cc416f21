"""Layer 1: word resources: WordNet (offline provisioning and a fast reader), METEOR synonym
and stem lookups, and the pymorphy3 Russian analyzer. Imports only metricore.core."""
