"""Run colours shared by the app's plots and the print figures, and the
report's figures (names and formats)."""

#: colour-blind-safe palette (Okabe-Ito without its yellow and black, then Tol's
#: muted), readable on white and on dark; a run keeps its colour (saved with the session)
PALETTE = [
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#882255",
    "#117733",
    "#332288",
    "#999933",
    "#44AA99",
    "#AA4499",
    "#88CCEE",
    "#DDCC77",
    "#CC6677",
    "#661100",
    "#6699CC",
    "#888888",
]

#: the report's figures (shrec_eval.outputs.figures draws them) and their formats;
#: here, so that the report's file list is known without importing matplotlib
REPORT_FIGURES = {
    "precision_recall": "precision-recall curves (mean over queries)",
    "ndcg": "NDCG vs rank (mean over queries)",
    "measure_bars": "the SHREC measure bars (NN, FT, ST, E, DCG) per run",
    "class_heatmap": "the ranking measure per class and run (with query classes)",
}
FIGURE_FORMATS = ("pdf", "svg", "png")
