"""Data and aggregation: reading tables, checking that a table fits a plan, and the engine
that computes the exact integer aggregates the noise is added to."""
