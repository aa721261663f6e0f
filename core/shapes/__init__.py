"""Shapes: the collection's shape files as pictures.  :mod:`.index` finds
each id's shape file in a shapes folder (PSB, ShapeNet, flat or a pattern
layout); :mod:`.shape_input` is the input gate for shape and image files
(size and pixel budgets decided before reading); :mod:`.render` draws a mesh
with numpy alone; :mod:`.thumbnails` turns shapes into PNG thumbnails, with a
per-user cache.  Used by the report's gallery and the app's shape views."""
