"""The statistic form's panels, one per family of fields a kind's form shows (the kind says
which: ``kind_of(query).form_fields()``, core/kinds/shared_form.py). The dialog
(query_dialog.QueryDialog) is the shell that lays them out, shows the kind's panels and
builds the plan's JSON from them; the core validates it."""
