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


"""Compressed camera images (JPEG, PNG) and the frame rates a node reports, without DDS."""

import random
from types import SimpleNamespace
import zlib

from banditlearn_ros.nodes.bridge import frame_of, FrameWatch
from banditlearn_ros.nodes.diagnostics import Counters
from banditlearn_ros.support import image_bridge
from banditlearn_ros.support.image_bridge import (
    compressed_to_array, FrameTooLargeError, ImageFormatError, jpeg_size, png_size,
    UnsupportedEncodingError, UnsupportedFormatError)
from banditlearn_ros.vision.frame_rates import FrameRates
import cv2
import numpy as np
import pytest


def picture(h=48, w=64):
    """Return a smooth BGR test image: JPEG keeps it within a few levels."""
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([x * 255 // w, y * 255 // h, (x + y) * 255 // (w + h)], -1).astype(np.uint8)


def message(data: bytes, fmt: str):
    """Return a stand-in CompressedImage: the fields the bridge reads, as rclpy gives them."""
    return SimpleNamespace(format=fmt, data=np.frombuffer(data, np.uint8).copy(),
                           header=SimpleNamespace(stamp=SimpleNamespace(sec=0, nanosec=0)))


def encoded(image, ext, *params):
    ok, buffer = cv2.imencode(ext, image, list(params))
    assert ok
    return buffer.tobytes()


@pytest.mark.parametrize('fmt', ['jpeg', 'bgr8; jpeg compressed bgr8',
                                 'rgb8; jpeg compressed bgr8', ''])
def test_jpeg_decodes_to_bgr(fmt):
    image = picture()
    out = compressed_to_array(message(encoded(image, '.jpg', cv2.IMWRITE_JPEG_QUALITY, 95),
                                      fmt))
    assert out.shape == image.shape and out.dtype == np.uint8
    assert np.abs(out.astype(int) - image).mean() < 3.0  # JPEG at quality 95: a few levels


@pytest.mark.parametrize('fmt', ['png', 'bgr8; png compressed bgr8', ''])
def test_png_decodes_exactly(fmt):
    image = picture()
    assert np.array_equal(compressed_to_array(message(encoded(image, '.png'), fmt)), image)


def test_grey_stays_grey_and_16_bit_png_keeps_its_high_byte():
    grey = picture()[:, :, 0]
    out = compressed_to_array(message(encoded(grey, '.png'), 'mono8; png compressed mono8'))
    assert out.shape == grey.shape and np.array_equal(out, grey)
    deep = grey.astype(np.uint16) * 257
    out = compressed_to_array(message(encoded(deep, '.png'), 'mono16; png compressed mono16'))
    assert out.dtype == np.uint8 and np.array_equal(out, grey)


def test_header_sizes_are_read_without_decoding():
    image = picture(37, 91)
    assert jpeg_size(encoded(image, '.jpg')) == (91, 37, 3)
    assert png_size(encoded(image, '.png')) == (91, 37, 3)
    assert jpeg_size(encoded(image[:, :, 0], '.jpg')) == (91, 37, 1)
    assert png_size(encoded(image[:, :, 0], '.png')) == (91, 37, 1)


@pytest.mark.parametrize('fmt', ['tiff', 'bgr8; webp compressed bgr8',
                                 '16UC1; compressedDepth png', 'jpeg png'])
def test_unsupported_format_is_named(fmt):
    data = encoded(picture(), '.png')
    with pytest.raises(UnsupportedFormatError) as raised:
        compressed_to_array(message(data, fmt))
    assert isinstance(raised.value, UnsupportedEncodingError)  # counted as such by nodes
    assert 'jpeg, png' in str(raised.value)


def png_declaring(width, height):
    """Return a tiny PNG whose header declares ``width`` x ``height`` RGB (data: 1 row)."""
    ihdr = width.to_bytes(4, 'big') + height.to_bytes(4, 'big') + bytes([8, 2, 0, 0, 0])

    def chunk(kind, body):
        return (len(body).to_bytes(4, 'big') + kind + body
                + zlib.crc32(kind + body).to_bytes(4, 'big'))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(b'\0'))
            + chunk(b'IEND', b''))


def jpeg_declaring(width, height):
    """Return a real small JPEG whose start-of-frame says ``width`` x ``height``."""
    data = bytearray(encoded(picture(), '.jpg'))
    pos = 2
    while data[pos + 1] not in (0xC0, 0xC1, 0xC2):
        pos += 2 + int.from_bytes(data[pos + 2:pos + 4], 'big')
    data[pos + 5:pos + 7] = height.to_bytes(2, 'big')
    data[pos + 7:pos + 9] = width.to_bytes(2, 'big')
    return bytes(data)


@pytest.mark.parametrize('data', [png_declaring(100000, 100000),
                                  jpeg_declaring(65000, 65000)], ids=['png', 'jpeg'])
def test_huge_declared_size_is_refused_before_decoding(data, monkeypatch):
    def no_decode(*args):
        raise AssertionError('decoded a frame over the limit')
    monkeypatch.setattr(cv2, 'imdecode', no_decode)
    with pytest.raises(FrameTooLargeError, match='more than the limit'):
        compressed_to_array(message(data, ''))


def test_the_limit_is_the_raw_images_pixels():
    data = encoded(picture(48, 64), '.png')
    with pytest.raises(FrameTooLargeError):
        compressed_to_array(message(data, 'png'), max_bytes=48 * 64 * 3 - 1)
    assert compressed_to_array(message(data, 'png'), max_bytes=48 * 64 * 3).shape == (48, 64, 3)
    assert compressed_to_array(message(data, 'png'), max_bytes=0).shape == (48, 64, 3)


def corrupt_cases():
    jpeg, png = encoded(picture(), '.jpg'), encoded(picture(), '.png')
    rng = random.Random(5)
    noise = bytes(rng.randrange(256) for _ in range(2000))
    broken_png = bytearray(png)
    broken_png[60:70] = bytes(10)  # inside IDAT: its CRC no longer holds
    return {
        'noise as jpeg': (noise, 'jpeg'),
        'noise with no format': (noise, ''),
        'png said to be jpeg': (png, 'jpeg'),
        'jpeg cut short': (jpeg[:len(jpeg) // 2], 'jpeg'),
        'png cut short': (png[:len(png) - 20], 'png'),
        'png with a broken chunk': (bytes(broken_png), 'png'),
        'jpeg header only': (jpeg[:20], 'jpeg'),
        'empty': (b'', 'jpeg'),
        'zero-size png': (png_declaring(0, 10), 'png'),
    }


@pytest.mark.parametrize('case', list(corrupt_cases()))
def test_corrupt_data_is_a_clear_error(case):
    data, fmt = corrupt_cases()[case]
    with pytest.raises(ImageFormatError):
        compressed_to_array(message(data, fmt))


def test_frame_of_counts_each_kind_of_bad_compressed_frame():
    counters = Counters(('unsupported_encoding', 'frame_too_large', 'bad_image'))
    told = []
    for data, fmt in [(b'\x00' * 50, 'jpeg'), (png_declaring(9000, 9000), 'png'),
                      (encoded(picture(), '.png'), 'tiff')]:
        assert frame_of(message(data, fmt), 2 ** 20, counters,
                        lambda kind, exc: told.append(kind)) is None
    assert told == ['bad_image', 'frame_too_large', 'unsupported_encoding']
    assert counters.snapshot() == {'unsupported_encoding': 1, 'frame_too_large': 1,
                                   'bad_image': 1}
    good = frame_of(message(encoded(picture(), '.png'), 'png'), 2 ** 20, counters, None)
    assert good.shape == (48, 64, 3)


def test_compressed_round_trip_through_the_message_builder():
    pytest.importorskip('sensor_msgs.msg')
    image = picture()
    msg = image_bridge.array_to_compressed(image, 'png')
    assert msg.format == 'bgr8; png compressed bgr8'
    assert np.array_equal(compressed_to_array(msg), image)
    msg = image_bridge.array_to_compressed(image, 'jpeg', quality=95)
    assert msg.format == 'bgr8; jpeg compressed bgr8'
    assert np.abs(compressed_to_array(msg).astype(int) - image).mean() < 3.0


# -- rates -------------------------------------------------------------------------------------

def stream(rate, seconds, keep, seed=0, start=100.0):
    """Return (arrival, stamp) of the frames of a ``rate`` Hz stream that arrive (``keep``)."""
    rng = random.Random(seed)
    out = []
    for i in range(int(rate * seconds)):
        stamp = start + i / rate
        if rng.random() < keep:
            out.append((stamp + 0.004, stamp))
    return out


@pytest.mark.parametrize('keep', [1.0, 0.8, 0.5])
def test_sent_rate_and_loss_from_the_stamps(keep):
    rates = FrameRates(window=5.0)
    frames = stream(30.0, 5.0, keep, seed=3)
    for arrival, stamp in frames:
        rates.add(arrival, stamp)
    got = rates.rates(now=frames[-1][0])
    assert got.sent == pytest.approx(30.0, abs=1e-6)
    # Lost: exactly the frames missing from the stamps' span.
    span = round((frames[-1][1] - frames[0][1]) * 30.0) + 1
    assert got.lost == pytest.approx(1.0 - len(frames) / span, abs=1e-9)
    assert got.arrived == pytest.approx(len(frames) / (frames[-1][0] - frames[0][0]), rel=0.05)


def test_a_burst_of_close_stamps_is_not_the_period():
    # A video read behind time sends a few frames at once; the camera's period still shows.
    rates = FrameRates(window=5.0)
    frames = stream(15.0, 4.0, 1.0)
    for n, (arrival, stamp) in enumerate(frames):
        rates.add(arrival, stamp)
        if n % 10 == 0:  # one frame in ten followed 5 ms later by another
            rates.add(arrival + 0.005, stamp + 0.005)
    # The gap after each burst frame is 5 ms short of a period: within 0.15 Hz of 15.
    got = rates.rates(now=frames[-1][0])
    assert got.sent == pytest.approx(15.0, abs=0.15) and got.lost == 0.0


def test_a_sender_that_stamps_late_now_and_then_is_not_losing_frames():
    # A video read at 15 fps on a loaded machine: a third of the frames stamped up to 40 ms
    # late (the next one comes on time), so some gaps are short and some long.
    rng = random.Random(2)
    rates = FrameRates(window=5.0)
    for i in range(60):
        stamp = 100.0 + i / 15.0 + (rng.uniform(0.0, 0.04) if rng.random() < 0.33 else 0.0)
        rates.add(stamp + 0.01, stamp)
    got = rates.rates(now=104.0)
    assert got.sent == pytest.approx(15.0, abs=0.5) and got.lost < 0.1


def test_a_jittery_sender_is_not_taken_for_a_faster_one():
    # Every frame of a 15 fps video stamped 0-30 ms late: the gaps spread around 67 ms.
    for seed in range(5):
        rng = random.Random(seed)
        rates = FrameRates(window=5.0)
        for i in range(70):
            stamp = 100.0 + i / 15.0 + rng.uniform(0.0, 0.03)
            rates.add(stamp + 0.01, stamp)
        got = rates.rates(now=104.7)
        assert got.sent == pytest.approx(15.0, abs=0.5) and got.lost < 0.1, seed


def test_heavy_loss_is_seen_as_most_frames_lost():
    # 6 of 30 a second (the worst seen without the profile: 3-13): two frames in a row are
    # rarer, and the period may be taken as two; the loss is then underestimated, not hidden.
    for seed in range(8):
        rates = FrameRates(window=5.0)
        frames = stream(30.0, 5.0, 0.2, seed=seed)
        for arrival, stamp in frames:
            rates.add(arrival, stamp)
        assert rates.rates(now=frames[-1][0]).lost > 0.5, seed


def test_rates_need_a_few_frames_and_forget_a_stream_that_restarts():
    rates = FrameRates(least_frames=10, least_span=2.0)
    for arrival, stamp in stream(30.0, 1.0, 1.0):
        rates.add(arrival, stamp)
    assert rates.rates(now=101.0).sent == 0.0  # one second: not told yet
    for arrival, stamp in stream(15.0, 3.0, 1.0, start=106.0):  # the 30 Hz ones out of the window
        rates.add(arrival, stamp)
    assert rates.rates(now=109.0).sent == pytest.approx(15.0)
    for arrival, stamp in stream(10.0, 3.0, 1.0, start=5.0):  # stamps went back: a new stream
        rates.add(arrival + 104.5, stamp)  # arrivals overlap the 15 Hz ones: forgotten
    assert rates.rates(now=112.5).sent == pytest.approx(10.0)
    assert rates.rates(now=200.0).arrived == 0.0  # nothing in the window any more


class Logger:
    """Stand-in for an rclpy logger: records what ``warning`` was given."""

    def __init__(self):
        self.warnings = []

    def warning(self, message, **kwargs):
        self.warnings.append(message)


def stamped(stamp):
    sec = int(stamp)
    return SimpleNamespace(header=SimpleNamespace(stamp=SimpleNamespace(
        sec=sec, nanosec=int(round((stamp - sec) * 1e9)))))


def test_frame_watch_warns_once_when_most_frames_are_lost():
    clock = [0.0]
    logger = Logger()
    watch = FrameWatch(logger, clock=lambda: clock[0])
    for arrival, stamp in stream(30.0, 4.0, 0.2, seed=8):
        clock[0] = arrival
        watch.frame(stamped(stamp))
    values, problem = watch.status()
    assert values['frames_sent_hz'] == pytest.approx(30.0, abs=0.01)
    assert values['frames_lost_fraction'] > 0.5 and 'most camera frames are lost' in problem
    watch.status()
    assert len(logger.warnings) == 1
    assert 'fastdds_profile.xml' in logger.warnings[0] and 'docs/robot.md' in logger.warnings[0]
    assert 'too busy' in logger.warnings[0]


def test_frame_watch_is_quiet_when_frames_arrive():
    clock = [0.0]
    logger = Logger()
    watch = FrameWatch(logger, clock=lambda: clock[0], wall_clock=lambda: clock[0])
    for arrival, stamp in stream(30.0, 4.0, 0.95, seed=8):
        clock[0] = arrival
        watch.frame(stamped(stamp))
    values, problem = watch.status()
    assert problem == '' and values['frames_lost_fraction'] < 0.1 and not logger.warnings
    # Stamp to arrival: 4 ms for every frame of the stream (the stamps' nanoseconds round).
    assert values['frame_age_ms_p50'] == pytest.approx(4.0, abs=0.01)
    assert values['frame_age_ms_p99'] == pytest.approx(4.0, abs=0.01)


def test_frame_age_is_not_told_when_the_clocks_disagree():
    clock = [0.0]
    watch = FrameWatch(Logger(), clock=lambda: clock[0], wall_clock=lambda: clock[0] + 1e6)
    for arrival, stamp in stream(30.0, 3.0, 1.0):
        clock[0] = arrival
        watch.frame(stamped(stamp))
    values, _ = watch.status()
    assert values['frames_sent_hz'] == pytest.approx(30.0)
    assert 'frame_age_ms_p50' not in values and 'frame_age_ms_p99' not in values


def test_age_quantiles():
    rates = FrameRates(least_frames=1, least_span=0.0)
    for i in range(100):
        rates.add(arrival=i * 0.01, stamp=i * 0.01, age=(i + 1) * 1e-3)  # 1..100 ms
    got = rates.rates(now=1.0)
    assert got.age_p50 == pytest.approx(0.050) and got.age_p99 == pytest.approx(0.099)
