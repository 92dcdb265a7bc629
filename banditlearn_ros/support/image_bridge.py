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
sensor_msgs/Image and CompressedImage <-> numpy without cv_bridge.

Honours ``step`` (row padding) and ``is_bigendian``; colour images come out as BGR
(OpenCV's order) and grey ones as 2-D arrays.  A ``sensor_msgs/CompressedImage`` as
image_transport's ``compressed`` plugin publishes it (JPEG or PNG) is decoded with OpenCV
after its header's width and height were checked against the same limit as a raw image.
Below the nodes, since the camera and display nodes and the bag recorder (which shrinks
recorded images) all use it.
"""

import numpy as np

SUPPORTED_ENCODINGS = ('bgr8', 'rgb8', 'bgra8', 'rgba8', 'mono8', 'mono16', '8UC1', '8UC3',
                       'yuv422', 'uyvy', 'yuv422_yuy2', 'yuyv')


def clipped(text: str, limit: int = 32) -> str:
    """Return ``text`` cut to ``limit`` characters: a sender's string goes into logs bounded."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + '...'


class UnsupportedEncodingError(ValueError):
    """The image's encoding is not one this package converts."""

    def __init__(self, encoding: str):
        self.encoding = clipped(encoding)
        super().__init__(f'unsupported image encoding {self.encoding!r}; supported: '
                         f'{", ".join(SUPPORTED_ENCODINGS)}')


class UnsupportedFormatError(UnsupportedEncodingError):
    """The compressed image's format is not JPEG or PNG."""

    def __init__(self, fmt: str):
        self.encoding = clipped(fmt)
        ValueError.__init__(self, f'unsupported compressed format {self.encoding!r}; '
                                  'supported: jpeg, png')


class ImageFormatError(ValueError):
    """The message's sizes and data do not agree."""


class FrameTooLargeError(ImageFormatError):
    """The image declares more bytes than the frame-size limit allows."""


MAX_FRAME_BYTES = 64 * 2 ** 20
"""Default largest image taken, in bytes of pixels (a 4K RGBA frame is 33 MB)."""


_CHANNELS = {'bgr8': 3, 'rgb8': 3, 'bgra8': 4, 'rgba8': 4, 'mono8': 1, '8UC1': 1, '8UC3': 3,
             'mono16': 1, 'yuv422': 2, 'uyvy': 2, 'yuv422_yuy2': 2, 'yuyv': 2}


def _yuv422_to_bgr(packed: np.ndarray, order: str) -> np.ndarray:
    """Convert packed 4:2:2 (two bytes a pixel) to BGR with the BT.601 equations."""
    h, w = packed.shape[:2]
    flat = packed.reshape(h, w * 2).astype(np.float32)
    if order == 'uyvy':
        u, y0, v, y1 = flat[:, 0::4], flat[:, 1::4], flat[:, 2::4], flat[:, 3::4]
    else:
        y0, u, y1, v = flat[:, 0::4], flat[:, 1::4], flat[:, 2::4], flat[:, 3::4]
    y = np.empty((h, w), np.float32)
    y[:, 0::2], y[:, 1::2] = y0, y1
    u = np.repeat(u, 2, axis=1)[:, :w] - 128.0
    v = np.repeat(v, 2, axis=1)[:, :w] - 128.0
    bgr = np.stack([y + 1.772 * u, y - 0.344136 * u - 0.714136 * v, y + 1.402 * v], axis=-1)
    return np.clip(bgr + 0.5, 0, 255).astype(np.uint8)


def image_to_array(msg, max_bytes: int = MAX_FRAME_BYTES) -> np.ndarray:
    """
    Return the image of a sensor_msgs/Image as a numpy array (BGR or grey).

    Every size the message declares is checked against the data it carries and against
    ``max_bytes`` before anything is allocated: a sender cannot make a few bytes of data
    grow into gigabytes (a huge ``step`` or ``height``).

    Parameters
    ----------
    msg : sensor_msgs.msg.Image
        The message.
    max_bytes : int
        Largest ``height * width * bytes per pixel`` taken (0 = no limit).

    Raises
    ------
    UnsupportedEncodingError
        For encodings outside ``SUPPORTED_ENCODINGS``.
    FrameTooLargeError
        When the pixels would take more than ``max_bytes``.
    ImageFormatError
        When height, width, step and the data length disagree.

    """
    encoding = msg.encoding
    if encoding not in _CHANNELS:
        raise UnsupportedEncodingError(encoding)
    channels = _CHANNELS[encoding]
    itemsize = 2 if encoding == 'mono16' else 1
    h, w, step = int(msg.height), int(msg.width), int(msg.step)
    row_bytes = w * channels * itemsize
    if h == 0 or w == 0:
        raise ImageFormatError(f'empty image {w}x{h}')
    if max_bytes and h * row_bytes > max_bytes:
        raise FrameTooLargeError(f'{w}x{h} {encoding} takes {h * row_bytes} bytes, more than '
                                 f'the limit of {max_bytes}')
    if step < row_bytes:
        raise ImageFormatError(f'step {step} is shorter than a row of {row_bytes} bytes')
    data = np.frombuffer(bytes(msg.data), dtype=np.uint8) \
        if not isinstance(msg.data, np.ndarray) else msg.data.view(np.uint8).reshape(-1)
    if data.size < step * (h - 1) + row_bytes:
        raise ImageFormatError(f'{data.size} bytes of data for {h} rows of step {step}')
    if channels == 2 and w % 2:
        # 4:2:2 packs two pixels in four bytes (one U and one V for the pair): a row of an odd
        # number of pixels has half a pair, which no camera sends.
        raise ImageFormatError(f'{encoding} needs an even width (pixels come in pairs), '
                               f'got {w}')
    # A view of the rows' pixels (the last row may lack its padding): only the pixels are
    # copied, never step x height bytes.
    rows = np.lib.stride_tricks.as_strided(data, shape=(h, row_bytes), strides=(step, 1),
                                           writeable=False)
    if encoding == 'mono16':
        dtype = np.dtype('>u2' if msg.is_bigendian else '<u2')
        return np.ascontiguousarray(rows).view(dtype).reshape(h, w).astype(np.uint16)
    img = np.ascontiguousarray(rows).reshape(h, w, channels) if channels > 1 \
        else np.ascontiguousarray(rows).reshape(h, w)
    if encoding in ('yuv422', 'uyvy'):
        return _yuv422_to_bgr(img, 'uyvy')
    if encoding in ('yuv422_yuy2', 'yuyv'):
        return _yuv422_to_bgr(img, 'yuyv')
    if encoding == 'rgb8':
        return img[:, :, ::-1].copy()
    if encoding == 'bgra8':
        return img[:, :, :3].copy()
    if encoding == 'rgba8':
        return img[:, :, 2::-1].copy()
    return img


def array_to_image(array: np.ndarray, encoding: str = 'bgr8', header=None):
    """Build a sensor_msgs/Image from a uint8 array (BGR for colour, 2-D for mono8)."""
    from sensor_msgs.msg import Image
    array = np.ascontiguousarray(array, dtype=np.uint8)
    if encoding == 'rgb8':
        array = np.ascontiguousarray(array[:, :, ::-1])
    if encoding == 'mono8' and array.ndim != 2:
        raise ImageFormatError('mono8 needs a 2-D array')
    if encoding in ('bgr8', 'rgb8') and (array.ndim != 3 or array.shape[2] != 3):
        raise ImageFormatError(f'{encoding} needs an H x W x 3 array')
    if encoding not in ('bgr8', 'rgb8', 'mono8'):
        raise UnsupportedEncodingError(encoding)
    msg = Image()
    if header is not None:
        msg.header = header
    msg.height, msg.width = int(array.shape[0]), int(array.shape[1])
    msg.encoding = encoding
    msg.is_bigendian = 0
    msg.step = int(array.strides[0])
    msg.data = array.tobytes()
    return msg


_PNG_MAGIC = b'\x89PNG\r\n\x1a\n'
_PNG_END = b'IEND\xaeB`\x82'
_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 1, 6: 3}
"""PNG colour type -> channels decoded (grey, RGB, palette, grey+alpha, RGBA; alpha dropped)."""


def compressed_kind(fmt: str, data: bytes) -> str:
    """
    Return 'jpeg' or 'png' for a CompressedImage's ``format`` and first bytes.

    ``format`` is what image_transport's compressed plugin writes (``jpeg``, ``png``,
    ``bgr8; jpeg compressed bgr8``, ``mono8; png compressed mono8``); an empty one is
    told by the data's magic bytes.  The data must be what the format says.
    """
    words = str(fmt).lower().replace(';', ' ').split()
    if 'compresseddepth' in words:
        raise UnsupportedFormatError(fmt)  # 32-bit depth with its own header: not a camera
    kinds = {'jpeg' if w in ('jpeg', 'jpg') else w for w in words} & {'jpeg', 'png'}
    is_png, is_jpeg = data[:8] == _PNG_MAGIC, data[:3] == b'\xff\xd8\xff'
    if not words:
        kinds = {'png'} if is_png else {'jpeg'} if is_jpeg else set()
        if not kinds:
            raise ImageFormatError('compressed image with no format and neither JPEG nor '
                                   'PNG data')
    if len(kinds) != 1:
        raise UnsupportedFormatError(fmt)
    kind = kinds.pop()
    if not (is_png if kind == 'png' else is_jpeg):
        raise ImageFormatError(f'format {clipped(fmt)!r} but the data is not {kind.upper()}')
    return kind


def png_size(data: bytes) -> 'tuple[int, int, int]':
    """Return (width, height, channels decoded) from a PNG's IHDR chunk (first after magic)."""
    if len(data) < 33 or data[12:16] != b'IHDR':
        raise ImageFormatError('PNG without its IHDR header')
    width = int.from_bytes(data[16:20], 'big')
    height = int.from_bytes(data[20:24], 'big')
    colour = data[25]
    if colour not in _PNG_CHANNELS:
        raise ImageFormatError(f'PNG colour type {colour} does not exist')
    return width, height, _PNG_CHANNELS[colour]


_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
"""JPEG start-of-frame markers (ITU-T T.81, Table B.1): not DHT (C4), JPG (C8), DAC (CC)."""


def jpeg_size(data: bytes) -> 'tuple[int, int, int]':
    """
    Return (width, height, channels) from a JPEG's start-of-frame segment.

    Walks the marker segments after SOI (ITU-T T.81, Annex B: each is 0xFF, a marker byte
    and, except RSTn/TEM, a two-byte length) up to the first SOF; every step moves forward,
    so a corrupt file ends the walk, never loops.
    """
    pos, end = 2, len(data)
    while pos + 4 <= end:
        if data[pos] != 0xFF:
            raise ImageFormatError('corrupt JPEG: a marker was expected')
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # no length
            pos += 2
            continue
        if marker in (0xD9, 0xDA):
            break  # end of image, or scan data before any frame header
        length = int.from_bytes(data[pos + 2:pos + 4], 'big')
        if length < 2:
            raise ImageFormatError('corrupt JPEG: a segment of length < 2')
        if marker in _SOF:
            if pos + 10 > end:
                break
            height = int.from_bytes(data[pos + 5:pos + 7], 'big')
            width = int.from_bytes(data[pos + 7:pos + 9], 'big')
            return width, height, 1 if data[pos + 9] == 1 else 3
        pos += 2 + length
    raise ImageFormatError('corrupt JPEG: no frame header')


def compressed_to_array(msg, max_bytes: int = MAX_FRAME_BYTES) -> np.ndarray:
    """
    Return the image of a sensor_msgs/CompressedImage (JPEG or PNG) as uint8 BGR or grey.

    The width and height are read from the file's own header (JPEG start of frame, PNG
    IHDR) and checked against ``max_bytes`` before OpenCV decodes anything, so a few bytes
    that declare a huge image cost nothing; a file cut short (no JPEG EOI, no PNG IEND) or
    one OpenCV cannot decode is refused.

    Parameters
    ----------
    msg : sensor_msgs.msg.CompressedImage
        The message (``format`` as image_transport's compressed plugin writes it).
    max_bytes : int
        Largest ``height * width * channels`` decoded (0 = no limit).

    Raises
    ------
    UnsupportedFormatError
        For a format other than JPEG or PNG (e.g. ``compressedDepth``).
    FrameTooLargeError
        When the decoded pixels would take more than ``max_bytes``.
    ImageFormatError
        For data that is not what the format says, cut short or corrupt.

    """
    data = msg.data
    data = data.tobytes() if hasattr(data, 'tobytes') else bytes(data)
    kind = compressed_kind(msg.format, data)
    width, height, channels = png_size(data) if kind == 'png' else jpeg_size(data)
    if width == 0 or height == 0:
        raise ImageFormatError(f'empty {kind.upper()} image {width}x{height}')
    if max_bytes and width * height * channels > max_bytes:
        raise FrameTooLargeError(f'{width}x{height} {kind.upper()} decodes to '
                                 f'{width * height * channels} bytes, more than the limit '
                                 f'of {max_bytes}')
    trimmed = data.rstrip(b'\x00')  # some encoders pad the buffer
    if not trimmed.endswith(_PNG_END if kind == 'png' else b'\xff\xd9'):
        raise ImageFormatError(f'{kind.upper()} data cut short ({len(data)} bytes)')
    import cv2
    flags = (cv2.IMREAD_GRAYSCALE if channels == 1 else cv2.IMREAD_COLOR) | \
        cv2.IMREAD_IGNORE_ORIENTATION
    image = cv2.imdecode(np.frombuffer(trimmed, np.uint8), flags)
    if image is None or image.shape[:2] != (height, width):
        raise ImageFormatError(f'corrupt {kind.upper()} data ({len(data)} bytes)')
    return image


def array_to_compressed(array: np.ndarray, kind: str = 'jpeg', quality: int = 90,
                        header=None):
    """Build a sensor_msgs/CompressedImage of a uint8 BGR or grey array, as image_transport."""
    import cv2
    from sensor_msgs.msg import CompressedImage
    array = np.ascontiguousarray(array, dtype=np.uint8)
    encoding = 'mono8' if array.ndim == 2 else 'bgr8'
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)] if kind == 'jpeg' else []
    ok, buffer = cv2.imencode('.jpg' if kind == 'jpeg' else '.png', array, params)
    if not ok:
        raise ImageFormatError(f'OpenCV could not encode a {array.shape} array as {kind}')
    msg = CompressedImage()
    if header is not None:
        msg.header = header
    msg.format = f'{encoding}; {kind} compressed {encoding}'
    msg.data = buffer.tobytes()
    return msg
