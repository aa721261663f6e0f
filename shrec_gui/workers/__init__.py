"""Work off the GUI thread: the scoring thread and its jobs, the file tasks,
the shapes' thread and its drawing processes.  Never imports widgets, the
window or the tabs."""
