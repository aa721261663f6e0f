"""A small CPU renderer for mesh thumbnails: numpy only, so that it runs
wherever the library runs (Qt's offscreen platform, a headless report, the
frozen app) with no OpenGL context.

The mesh is seen from one fixed direction (orthographic), centred and scaled
so that its silhouette fills the square image less a margin, and shaded
flat: each face lit by a Lambert term of its normal against a light from the
upper left, plus ambient light.  Faces are drawn two-sided (meshes from the
wild wind their faces either way).  Visibility is a z-buffer: every pixel
centre inside a face is a fragment with the face's interpolated depth, and
the nearest fragment of each pixel wins.

Rasterising is vectorised over faces with scanline spans: each face's rows,
each row's span, each span's pixels, so the work follows the pixels covered.
Memory follows the picture: faces are drawn a bounded batch at a time into
a z-buffer of the picture's size, and a mesh whose faces would cover more
than :data:`MAX_FRAGMENTS` pixels in all is not drawn (ValueError).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["view_matrix", "render_mesh", "DEFAULT_VIEW", "BASE_RGB"]

#: elevation and azimuth of the fixed view, in degrees
DEFAULT_VIEW = (20.0, -35.0)
#: the surface colour (lit faces range from AMBIENT to full)
BASE_RGB = np.array([176.0, 190.0, 212.0])
AMBIENT = 0.28
#: the light, in view coordinates (x right, y up, z towards the viewer)
LIGHT = np.array([-0.45, 0.6, 0.66])
LIGHT = LIGHT / np.linalg.norm(LIGHT)
#: free space around the silhouette, as a fraction of the image side
MARGIN = 0.06
#: the rasteriser's passes: face rows and covered pixels (fragments) held at
#: once, whatever the mesh (about 10 MB and 40 MB of arrays)
ROWS_PER_PASS = 1 << 16
FRAGMENTS_PER_PASS = 1 << 19
#: covered pixels (fragments) drawn for one picture at most, about 8 s of
#: work: 2,048 times the area of a 128 px picture (a closed surface covers
#: its silhouette twice, a scan with inner layers a few times more); a mesh
#: of more (large overlapping faces) is not drawn, as its time would follow
#: the faces' area
MAX_FRAGMENTS = 1 << 25


def view_matrix(elevation: float, azimuth: float) -> np.ndarray:
    """Rotation taking model coordinates (y up) to view coordinates: turn
    by ``azimuth`` about the vertical axis, then tilt by ``elevation``."""
    a, e = math.radians(azimuth), math.radians(elevation)
    turn = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    tilt = np.array([[1, 0, 0], [0, math.cos(e), -math.sin(e)], [0, math.sin(e), math.cos(e)]])
    return tilt @ turn


def render_mesh(
    vertices,
    faces,
    size: int = 128,
    *,
    view: tuple[float, float] = DEFAULT_VIEW,
    rotation: np.ndarray | None = None,
    scale: float = 1.0,
    margin: float = MARGIN,
) -> np.ndarray:
    """An RGBA image (size x size x 4, uint8) of a triangle mesh; the
    background is transparent.  ``rotation`` (3 x 3) replaces the fixed
    view (the 3D viewer's turntable); ``scale`` > 1 zooms in.  ValueError
    when the mesh has no face with finite, distinct corners."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if len(f) and (f.min() < 0 or f.max() >= len(v)):
        raise ValueError("a face refers to a vertex the file does not have")
    if len(f) == 0:
        raise ValueError("the mesh has no faces")
    finite = np.all(np.isfinite(v), axis=1)
    f = f[finite[f].all(axis=1)]
    if len(f) == 0:
        raise ValueError(
            "every face of the mesh has a corner that is not a number (NaN or infinite)"
        )
    R = rotation if rotation is not None else view_matrix(*view)
    used = np.unique(f)
    # the picture does not depend on the mesh's scale: the corners scaled by a
    # power of two (exactly) into [-1, 1], so that no product over- or
    # underflows (corners near 1e308 or 1e-300 are drawn as any others)
    top = float(np.abs(v[used]).max())
    if top > 0:
        v = np.ldexp(v, -np.frexp(top)[1])
    p = v @ R.T
    lo, hi = p[used].min(axis=0), p[used].max(axis=0)
    extent = float(max(hi[0] - lo[0], hi[1] - lo[1]))
    if not extent > 0:
        raise ValueError("the mesh has no extent (every vertex at one point)")
    # a view-independent scale for the turntable (its silhouette changes as it turns)
    if rotation is not None:
        centre3 = (v[used].min(axis=0) + v[used].max(axis=0)) / 2
        radius = float(np.linalg.norm(v[used] - centre3, axis=1).max())
        extent, centre = 2 * radius, (R @ centre3)[:2]
    else:
        centre = (lo[:2] + hi[:2]) / 2
    k = size * (1 - 2 * margin) * scale / extent
    x = (p[:, 0] - centre[0]) * k + size / 2
    y = size / 2 - (p[:, 1] - centre[1]) * k
    z = p[:, 2]
    # flat shading from the view-space normals, two-sided
    a, b, c = p[f[:, 0]], p[f[:, 1]], p[f[:, 2]]
    n = np.cross(b - a, c - a)
    length = np.linalg.norm(n, axis=1)
    keep = length > 0
    f, n, length = f[keep], n[keep], length[keep]
    if len(f) == 0:
        raise ValueError("every face of the mesh is degenerate (no area)")
    shade = AMBIENT + (1 - AMBIENT) * np.abs(n @ LIGHT) / length
    face, pix = _rasterise(x, y, z, f, size)
    img = np.zeros((size * size, 4), dtype=np.uint8)
    img[pix, :3] = np.clip(np.rint(BASE_RGB * shade[face, None]), 0, 255).astype(np.uint8)
    img[pix, 3] = 255
    return img.reshape(size, size, 4)


def _rasterise(x, y, z, f, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(face, pixel) of every pixel covered: the nearest face (largest z)
    whose triangle holds the pixel's centre.

    Scanline spans, vectorised over faces: each face's pixel rows, each
    row's span between the face's edges at the row's centre line, each
    span's pixels; so the work follows the pixels covered.  An edge is
    always intersected from its upper end, so that two faces sharing it
    find the same x (no crack between them).

    Memory follows the picture, not the mesh: faces are taken a batch of
    at most :data:`ROWS_PER_PASS` rows at a time, their spans a batch of
    at most :data:`FRAGMENTS_PER_PASS` pixels at a time, into a z-buffer
    of the picture's size.  A pixel goes to the last face (in file order)
    at its nearest depth, whatever the batches.  ValueError when the faces
    would cover more than :data:`MAX_FRAGMENTS` pixels."""
    tx, ty, tz = x[f], y[f], z[f]  # (m, 3) each
    area = (tx[:, 1] - tx[:, 0]) * (ty[:, 2] - ty[:, 0]) - (ty[:, 1] - ty[:, 0]) * (
        tx[:, 2] - tx[:, 0]
    )
    # the work bound, from the faces' areas inside the picture (their bounding
    # boxes clipped to it bound the pixels they can cover)
    bw = np.clip(tx.max(axis=1), 0, size) - np.clip(tx.min(axis=1), 0, size)
    bh = np.clip(ty.max(axis=1), 0, size) - np.clip(ty.min(axis=1), 0, size)
    covered = float(np.minimum(np.abs(area) / 2, bw * bh).sum())
    if covered > MAX_FRAGMENTS:
        raise ValueError(
            f"too many large overlapping faces: they cover the {size} px picture "
            f"{covered / (size * size):,.0f} times over (at most {MAX_FRAGMENTS:,} "
            "covered pixels are drawn)"
        )
    # the rows whose centres (j + 0.5) fall in each face's height
    y0 = np.maximum(np.ceil(ty.min(axis=1) - 0.5), 0).astype(np.int64)
    y1 = np.minimum(np.floor(ty.max(axis=1) - 0.5), size - 1).astype(np.int64)
    h = np.where(np.abs(area) > 1e-12, np.maximum(y1 - y0 + 1, 0), 0)  # edge-on: nothing
    # the depth plane of each face: z = A x + B y + C
    X, Y, Z = tx, ty, tz
    a0, b0, k0 = Y[:, 1] - Y[:, 2], X[:, 2] - X[:, 1], X[:, 1] * Y[:, 2] - Y[:, 1] * X[:, 2]
    a1, b1, k1 = Y[:, 2] - Y[:, 0], X[:, 0] - X[:, 2], X[:, 2] * Y[:, 0] - Y[:, 2] * X[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        d0, d1 = (Z[:, 0] - Z[:, 2]) / area, (Z[:, 1] - Z[:, 2]) / area
    plane = (d0 * a0 + d1 * a1, d0 * b0 + d1 * b1, Z[:, 2] + d0 * k0 + d1 * k1)
    del a0, b0, k0, a1, b1, k1, d0, d1
    zbuf = np.full(size * size, -np.inf)
    owner = np.full(size * size, -1, dtype=np.int64)
    for fa, fb in _batches(h, ROWS_PER_PASS):
        face, row, c0, w = _spans(tx, ty, fa, h[fa:fb], y0[fa:fb], size)
        for ra, rb in _batches(w, FRAGMENTS_PER_PASS):
            _fill(zbuf, owner, plane, face[ra:rb], row[ra:rb], c0[ra:rb], w[ra:rb], size)
    covered_px = np.flatnonzero(owner >= 0)
    return owner[covered_px], covered_px


def _batches(counts: np.ndarray, budget: int):
    """[a, b) ranges of ``counts`` whose sums stay within ``budget`` (a
    single count above it makes a range of its own)."""
    ends = np.cumsum(counts)
    a, done = 0, 0
    while a < len(counts):
        b = int(np.searchsorted(ends, done + budget, side="right"))
        b = max(b, a + 1)
        yield a, b
        done = int(ends[b - 1])
        a = b


def _spans(tx, ty, fa: int, h: np.ndarray, y0: np.ndarray, size: int):
    """The pixel rows of faces [fa, fa + len(h)): (face, row, first column,
    width) of each row's span."""
    local = np.repeat(np.arange(len(h)), h)
    face = local + fa
    start = np.cumsum(h) - h
    row = y0[local] + (np.arange(len(face)) - np.repeat(start, h))
    yc = row + 0.5
    xl = np.full(len(face), np.inf)
    xr = np.full(len(face), -np.inf)
    for a, b in ((0, 1), (1, 2), (2, 0)):
        ax, ay, bx, by = tx[face, a], ty[face, a], tx[face, b], ty[face, b]
        swap = (by < ay) | ((by == ay) & (bx < ax))  # from the upper end
        ax, bx = np.where(swap, bx, ax), np.where(swap, ax, bx)
        ay, by = np.where(swap, by, ay), np.where(swap, ay, by)
        spans = (ay <= yc) & (yc <= by) & (by > ay)
        with np.errstate(divide="ignore", invalid="ignore"):
            xe = ax + (yc - ay) * (bx - ax) / (by - ay)
        xl = np.where(spans, np.minimum(xl, xe), xl)
        xr = np.where(spans, np.maximum(xr, xe), xr)
    c0 = np.maximum(np.ceil(xl - 0.5), 0)
    c1 = np.minimum(np.floor(xr - 0.5), size - 1)
    w = np.where(np.isfinite(c0) & np.isfinite(c1), np.maximum(c1 - c0 + 1, 0), 0).astype(np.int64)
    c0 = np.where(w > 0, c0, 0).astype(np.int64)
    return face, row, c0, w


def _fill(zbuf, owner, plane, face, row, c0, w, size: int) -> None:
    """Draw the spans' pixels into the z-buffer: the nearest depth of each
    pixel so far, and the last face at that depth (two faces at one depth
    meet on an edge: either is right)."""
    A, B, C = plane
    pface = np.repeat(face, w)
    prow = np.repeat(row, w)
    pstart = np.cumsum(w) - w
    col = np.repeat(c0, w) + (np.arange(len(pface)) - np.repeat(pstart, w))
    depth = A[pface] * (col + 0.5) + B[pface] * (prow + 0.5) + C[pface]
    pix = prow * size + col
    del prow, col, pstart
    np.maximum.at(zbuf, pix, depth)
    near = depth >= zbuf[pix]
    owner[pix[near]] = pface[near]
