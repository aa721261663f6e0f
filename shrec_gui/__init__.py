"""shrec_gui: the Qt desktop application (PySide6, pyqtgraph) on top of ``core``.

The package is part of the fixed project layout; the application itself is
built by the "desktop app" issue.  ``core`` never imports this package (see
the import-linter contract in pyproject.toml).
"""
