"""The release pipeline, the top layer: adding the noise (noise.py), publishing a bundle after
charging the ledger, resuming an interrupted release, the bundle format, its offline
verification, the report and the data-file commitment."""
