"""Layer 3: one module (or package) per metric family, each with its input checks, per-item
statistics and result type. Imports core, lexicon, text and stats; never the registry, the
challenge or the CLI."""
