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

Rasterising is vectorised over faces: faces are grouped by the size of their
bounding box in pixels (powers of two), and each group tests the pixels of
its boxes at once, a bounded number of candidates at a time.
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
#: candidate pixels tested at once (memory: about 40 bytes each)
_CHUNK = 1 << 20


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
    finite = np.isfinite(v).all(axis=1)
    f = f[finite[f].all(axis=1)]
    if len(f) == 0:
        raise ValueError("the mesh has no faces")
    R = rotation if rotation is not None else view_matrix(*view)
    used = np.unique(f)
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
    whose triangle holds the pixel's centre."""
    tx, ty, tz = x[f], y[f], z[f]  # (m, 3) each
    # the pixel columns / rows whose centres (i + 0.5) fall in each face's box
    x0 = np.maximum(np.ceil(tx.min(axis=1) - 0.5), 0).astype(np.int64)
    x1 = np.minimum(np.floor(tx.max(axis=1) - 0.5), size - 1).astype(np.int64)
    y0 = np.maximum(np.ceil(ty.min(axis=1) - 0.5), 0).astype(np.int64)
    y1 = np.minimum(np.floor(ty.max(axis=1) - 0.5), size - 1).astype(np.int64)
    w, h = x1 - x0 + 1, y1 - y0 + 1
    live = (w > 0) & (h > 0)
    area = (tx[:, 1] - tx[:, 0]) * (ty[:, 2] - ty[:, 0]) - (ty[:, 1] - ty[:, 0]) * (
        tx[:, 2] - tx[:, 0]
    )
    live &= np.abs(area) > 1e-12  # seen edge-on
    side = np.maximum(w, h)
    bucket = np.zeros(len(f), dtype=np.int64)
    bucket[live] = np.ceil(np.log2(side[live])).astype(np.int64)
    faces_out, pix_out, depth_out = [], [], []
    for b in np.unique(bucket[live]):
        s = 1 << int(b)
        members = np.flatnonzero(live & (bucket == b))
        oy, ox = np.divmod(np.arange(s * s), s)
        step = max(1, _CHUNK // (s * s))
        for start in range(0, len(members), step):
            m = members[start : start + step]
            px = x0[m, None] + ox[None, :]
            py = y0[m, None] + oy[None, :]
            ok = (px <= x1[m, None]) & (py <= y1[m, None])
            fi, slot = np.nonzero(ok)
            faces = m[fi]
            cx = px[fi, slot] + 0.5
            cy = py[fi, slot] + 0.5
            X, Y, A = tx[faces], ty[faces], area[faces]
            # barycentric weights from the edge functions
            l0 = ((X[:, 1] - cx) * (Y[:, 2] - cy) - (Y[:, 1] - cy) * (X[:, 2] - cx)) / A
            l1 = ((X[:, 2] - cx) * (Y[:, 0] - cy) - (Y[:, 2] - cy) * (X[:, 0] - cx)) / A
            l2 = 1.0 - l0 - l1
            inside = (l0 >= 0) & (l1 >= 0) & (l2 >= 0)
            faces = faces[inside]
            Z = tz[faces]
            depth = l0[inside] * Z[:, 0] + l1[inside] * Z[:, 1] + l2[inside] * Z[:, 2]
            faces_out.append(faces)
            pix_out.append((py[fi, slot] * size + px[fi, slot])[inside])
            depth_out.append(depth)
    if not faces_out:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    face = np.concatenate(faces_out)
    pix = np.concatenate(pix_out)
    depth = np.concatenate(depth_out)
    order = np.lexsort((-depth, pix))  # by pixel, the nearest first
    pix = pix[order]
    first = np.ones(len(pix), dtype=bool)
    first[1:] = pix[1:] != pix[:-1]
    return face[order][first], pix[first]
