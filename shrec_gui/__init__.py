"""shrec_gui: the Qt desktop application (PySide6, pyqtgraph) on top of
``shrec_eval`` (the core/ folder).

The package is part of the fixed project layout; the application itself is
built by the "desktop app" issue.  ``shrec_eval`` never imports this package (see
the import-linter contract in pyproject.toml).
"""
