"""The tabs' table models (Qt item models: display strings, sort values) and
the proxy that sorts them.  Never imports widgets, the window or the tabs."""
