"""Run colours shared by the app's plots and the print figures, the grade
colours of ranked results (gallery, figures, the app's shape views), and the
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

#: the frame of a result by grade: not relevant, relevant below the top grade,
#: top grade (the colours of the app's ranked-list strips)
GRADE_COLOURS = {0: (225, 225, 225), 1: (140, 200, 120), 2: (20, 110, 50)}


def grade_colour(grade: int, top_grade: int) -> tuple[int, int, int]:
    if grade <= 0:
        return GRADE_COLOURS[0]
    return GRADE_COLOURS[2] if grade >= max(top_grade, 1) else GRADE_COLOURS[1]


def grade_words(grade: int, top_grade: int) -> str:
    if grade <= 0:
        return "not relevant"
    if top_grade <= 1:
        return "relevant"
    if top_grade == 2:
        return "highly relevant" if grade >= 2 else "marginally relevant"
    return f"grade {grade}"
