"""Widgets the tabs and the window share: the table view, menus, the focus
ring, the welcome page, the reading banner, thumbnails and the 3D viewer."""
