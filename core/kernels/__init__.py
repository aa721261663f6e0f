"""The numeric kernels under the readers and the scorer, numpy only, with no
knowledge of any file format: ``rowsort`` (the rows of a dissimilarity matrix
ranked at the speed of a sort), ``topk`` (the first K of each row, a tile at a
time), ``distances`` (the distances between feature vectors, a tile of rows at
a time), ``tile_cache`` (tiles kept for the next block of queries) and
``blas_threads`` (one BLAS thread while tiles are computed)."""
