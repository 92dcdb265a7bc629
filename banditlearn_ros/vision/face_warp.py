# Copyright 2026 banditlearn_ros contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
A face photo turned by a head pose: the camera images of head-gesture tests and benchmarks.

A piecewise-affine warp driven by Face Mesh landmarks; it needs OpenCV only when called.
"""

import numpy as np


def fit_frame(image: np.ndarray, width: int = 640, height: int = 480) -> np.ndarray:
    """Return a photo scaled to ``height`` and padded (edge pixels) to a width x height frame."""
    import cv2
    scale = height / image.shape[0]
    image = cv2.resize(image, (int(image.shape[1] * scale), height),
                       interpolation=cv2.INTER_AREA)
    pad = (width - image.shape[1]) // 2
    return cv2.copyMakeBorder(image, 0, 0, pad, width - image.shape[1] - pad,
                              cv2.BORDER_REPLICATE)


def rotate_face(image: np.ndarray, landmarks: np.ndarray, yaw: float = 0.0,
                pitch: float = 0.0, roll: float = 0.0, axis_depth: float = 0.6,
                step: int = 3) -> np.ndarray:
    """
    Return a photo with its face turned by yaw/pitch/roll (deg): a piecewise-affine 3-D warp.

    ``landmarks`` are the face's Face Mesh points as N x 3 pixels (x, y, depth; depth grows
    away from the camera). They are rotated about an axis ``axis_depth`` face-widths behind the
    face centre and projected orthographically; the image is warped triangle by triangle from
    the old to the new positions (a subset of every ``step``-th landmark plus fixed anchors
    around the face and on the border, so the background stays put). Unlike a flat
    perspective warp, the nose moves against the face outline, which is what Face Mesh reads
    as a head turn. Signs follow :mod:`head_pose`.
    """
    import cv2
    from banditlearn_ros.vision.head_pose import euler_to_rotation
    h, w = image.shape[:2]
    pts = np.asarray(landmarks, np.float64)[::step, :3]
    lo, hi = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    width = float(hi[0] - lo[0])
    centre = np.array([(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0,
                       float(np.mean(pts[:, 2])) + axis_depth * width])
    moved = (pts - centre) @ euler_to_rotation(yaw, pitch, roll).T + centre
    # Fixed anchors: a ring well outside the face and the image border.
    mid = (lo + hi) / 2.0
    radius = 0.9 * np.max(hi - lo)
    ring = np.array([mid + radius * np.array([np.cos(a), np.sin(a)])
                     for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)])
    border = np.array([[x, y] for x in (0, w / 2, w - 1) for y in (0, h / 2, h - 1)
                       if not (x == w / 2 and y == h / 2)])
    anchors = np.vstack([ring, border])
    anchors = anchors[(anchors[:, 0] >= 0) & (anchors[:, 0] <= w - 1)
                      & (anchors[:, 1] >= 0) & (anchors[:, 1] <= h - 1)]
    src = np.vstack([pts[:, :2], anchors]).astype(np.float32)
    dst = np.vstack([moved[:, :2], anchors]).astype(np.float32)
    subdiv = cv2.Subdiv2D((0, 0, w, h))
    index = {}
    for i, (x, y) in enumerate(dst):
        xy = (float(min(max(x, 0), w - 1)), float(min(max(y, 0), h - 1)))
        index[(round(xy[0], 1), round(xy[1], 1))] = i
        subdiv.insert(xy)
    out = image.copy()
    for tri in subdiv.getTriangleList().reshape(-1, 3, 2):
        ids = [index.get((round(float(x), 1), round(float(y), 1))) for x, y in tri]
        if any(i is None for i in ids):
            continue
        d = dst[ids]
        x0, y0 = np.floor(d.min(axis=0)).astype(int)
        x1, y1 = np.ceil(d.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        affine = cv2.getAffineTransform((d - [x0, y0]).astype(np.float32), src[ids])
        patch = cv2.warpAffine(image, affine, (x1 - x0, y1 - y0),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REFLECT)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(d - [x0, y0]).astype(np.int32), 1)
        region = out[y0:y1, x0:x1]
        region[mask > 0] = patch[mask > 0]
    return out
