"""The worked example of the SHREC 2006 evaluation page and contest report
(docs/measures.md, "SHREC 2006: per-query measures"), written once: the
query's gains, its judged grades, the collection size, and every number and
vector the seeds print.  tests/test_measures_worked_example.py holds the
engine to them, ``python tests/reference.py`` the oracle."""

G = [2, 2, 1, 2, 2, 1, 0, 1, 0, 1, 2, 0, 0, 0]
JUDGED = [2] * 6 + [1] * 5
DS = 1814
#: the top grade (highly relevant)
TOP = 2

EXPECTED = {
    "tp_hr": 5,
    "fp_hr": 9,
    "tn_hr": 1799,
    "fn_hr": 1,
    "ft_hr": 4 / 6,
    "st_hr": 5 / 12,
    "prec_hr": 5 / 14,
    "rec_hr": 5 / 6,
    "ap_hr": (1 / 1 + 2 / 2 + 3 / 4 + 4 / 5 + 5 / 11) / 5,
    "tp_r": 9,
    "fp_r": 5,
    "tn_r": 1798,
    "fn_r": 2,
    "ft_r": 9 / 11,
    "st_r": 9 / 14,
    "prec_r": 9 / 14,
    "rec_r": 9 / 11,
    "ap_r": (1 + 1 + 1 + 1 + 1 + 1 + 7 / 8 + 8 / 10 + 9 / 11) / 9,
}
# the decimals as printed in the seeds
PRINTED = {
    "ft_hr": 0.666667,
    "st_hr": 0.416667,
    "prec_hr": 0.357143,
    "rec_hr": 0.833333,
    "ap_hr": 0.800909,
    "ft_r": 0.818182,
    "st_r": 0.642857,
    "prec_r": 0.642857,
    "rec_r": 0.818182,
    "ap_r": 0.943687,
    "adr": 0.819221,
}

CG = [2, 4, 5, 7, 9, 10, 10, 11, 11, 12, 14, 14, 14, 14]
DCG = [
    2.0,
    4.0,
    4.63093,
    5.63093,
    6.492283,
    6.8791356,
    6.8791356,
    7.212469,
    7.212469,
    7.5134993,
    8.091629,
    8.091629,
    8.091629,
    8.091629,
]
ICG = [2, 4, 6, 8, 10, 12, 13, 14, 15, 16, 17]
IDCG = [
    2.0,
    4.0,
    5.2618594,
    6.2618594,
    7.123213,
    7.8969183,
    8.253125,
    8.586458,
    8.901923,
    9.202953,
    9.492018,
]
NCG = [
    1.0,
    1.0,
    0.8333333,
    0.875,
    0.9,
    0.8333333,
    0.7692308,
    0.78571427,
    0.73333335,
    0.75,
    0.8235294,
    0.8235294,
    0.8235294,
    0.8235294,
]
NDCG = [
    1.0,
    1.0,
    0.8800938,
    0.89924246,
    0.9114262,
    0.87111646,
    0.83351886,
    0.83998185,
    0.8102147,
    0.81642264,
    0.8524667,
    0.8524667,
    0.8524667,
    0.8524667,
]
