"""The plots drawn on screen (pyqtgraph): curves, measure bars, the class
heatmap, ranked strips, significance charts, and how their legends and
name ticks are placed."""
