"""The differential-privacy mathematics: exact samplers (mechanisms, gaussian), sensitivities,
measurements, accountants, accuracy and intervals, and what an ε means for a person (risk).
Reads plans (model); knows nothing of tables, ledgers or releases."""
