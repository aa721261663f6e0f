"""Work off the GUI thread.  Two ways to run it: the scoring thread
(scoring.py: one long job at a time, cancelled between blocks of queries)
and the file tasks (file_tasks.py: short jobs that open files, many at
once; the GUI thread never opens a file).  The shapes (shapes.py) keep a
thread of their own for a stated reason: their requests are served newest
first and the stale ones dropped as the user moves on, a queue the file
tasks do not keep, and it hands the drawing to processes (trimesh's Python
loops would hold the interpreter lock against the window).  Never imports
widgets, the window or the tabs."""
