"""The main window and what it alone uses: the menu bar, the File menu's
dialogs, the other dialogs, Help, and the preferences and themes."""
