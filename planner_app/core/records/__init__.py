"""Persistent records: the budget ledger, the hash-chained audit log and the officer's
review decisions. Independent of the data layer."""
