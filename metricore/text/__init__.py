"""Layer 2: text machinery shared by the metrics: normalizers, tokenizers (Treebank, PTB),
Levenshtein distances, assignment matching, number words. Imports metricore.core and
metricore.lexicon, never a metric."""
