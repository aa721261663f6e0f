"""Print figures of the plots (PNG, SVG, PDF at a chosen size): what is
asked for, the dialog that asks, the layout of the copy and its items."""
