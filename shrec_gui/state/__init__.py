"""The contest the window shows, as state: the controller and its runs, the
files it opens and saves, the jobs it queues, undo, the view state and the
autosave.  Never imports widgets, the window or the tabs (pyproject.toml's
import-linter contract)."""
