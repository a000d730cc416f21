"""Layer 0: what every metric shares and nothing metric-specific: input validation, signatures,
best-over-alternatives grouping, structured-answer JSON, the result protocol and the metric
description types. Imports nothing else from metricore."""
