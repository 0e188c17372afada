"""PyInstaller hook: the modules imported lazily and the data files found at run time."""

from PyInstaller.utils.hooks import collect_submodules

hiddenimports = (collect_submodules("planner_app")
                 + ["planner_app.resources", "fpdf", "openpyxl", "matplotlib.backends.backend_qtagg",
                    "matplotlib.backends.backend_agg"])
