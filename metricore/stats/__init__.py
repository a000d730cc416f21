"""Layer 1: resampling statistics (bootstrap intervals, paired tests) over per-item statistics;
knows no metric. Imports only metricore.core."""
