"""The daylight sensor's output from the day time, as Java Edition 1.20 works it out (in 32-bit floats where
vanilla uses them, and with vanilla's 65536-entry sine table for its cosines).

The sensor is taken to stand under open sky (sky light 15) in clear weather (no rain or thunder darkening
the sky): the engine has no light or weather (docs/limits.md).
"""

from __future__ import annotations

import math

import numpy as np

f32 = np.float32
_PI_F = f32(math.pi)


def _mth_cos(x: np.float32) -> np.float32:
    """Vanilla Mth.cos: a look-up in a table of sin(i * 2 pi / 65536) stored as floats."""
    i = int(f32(f32(x * f32(10430.378)) + f32(16384.0))) & 65535
    return f32(math.sin(i * math.pi * 2.0 / 65536.0))


def sun_angle_fraction(day_time: int) -> np.float32:
    """Vanilla DimensionType.timeOfDay: the sun's position as a fraction of a turn (0.5 at midnight)."""
    d0 = day_time / 24000.0 - 0.25
    d0 -= math.floor(d0)
    d1 = 0.5 - math.cos(d0 * math.pi) / 2.0
    return f32(f32(d0 * 2.0 + d1) / f32(3.0))


def sky_darken(day_time: int) -> int:
    """Vanilla Level.updateSkyBrightness in clear weather: how much the sky's light is dimmed (0 at noon,
    11 at night)."""
    c = float(_mth_cos(f32(sun_angle_fraction(day_time) * f32(_PI_F * f32(2.0)))))
    d2 = 0.5 + 2.0 * min(max(c, -0.25), 0.25)
    return int((1.0 - d2) * 11.0)


def sensor_output(day_time: int, inverted: int) -> int:
    """A daylight sensor's output at a game tick whose day time (after the tick's advance) is `day_time`:
    vanilla DaylightDetectorBlock.updateSignalStrength with sky light 15. The sky's darkness is the one
    worked out at the start of that tick, from the day time before it advanced."""
    i = 15 - sky_darken(day_time - 1)
    angle = f32(sun_angle_fraction(day_time) * f32(_PI_F * f32(2.0)))
    if inverted:
        i = 15 - i
    elif i > 0:
        target = f32(0.0) if angle < _PI_F else f32(_PI_F * f32(2.0))
        angle = f32(angle + f32(f32(target - angle) * f32(0.2)))
        i = math.floor(float(f32(f32(i) * _mth_cos(angle))) + 0.5)  # Java Math.round(float)
    return min(max(i, 0), 15)
