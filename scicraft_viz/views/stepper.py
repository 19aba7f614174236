"""Time controls: step, play/pause with a speed, reset, press the button, and the tick counter in
game and redstone ticks. Stepping moves the session's cursor; the engine runs only for ticks that
were never recorded."""

from __future__ import annotations

import time
from collections.abc import Callable

import ipywidgets as W

from scicraft_viz.views.session import Session

BEAT_MS = 50  # the Play timer's beat when the kernel plays


def tick_text(tick: int, start: int, end: int, press: int | None) -> str:
    """The counter: game ticks, redstone ticks, and where this tick sits in the recording."""
    rt = tick / 2
    rt_txt = f"{rt:g}"
    parts = [f"<b>tick {tick} gt</b> · {rt_txt} rt"]
    if press is not None and tick >= press:
        parts.append(f"press +{tick - press} gt (+{(tick - press) / 2:g} rt)")
    parts.append("live" if tick == end else f"replaying {start}..{end}")
    return ("<span class='scv-tick' style='font-family:monospace;white-space:nowrap'>" + " · ".join(parts)
            + "</span>")


class Stepper(W.VBox):
    """Buttons bound to a session. `play` is an ipywidgets.Play: its timer runs in the browser and
    each beat moves the session to the tick the clock says it should be at (`speed` game ticks per
    second since play started), so a slow redraw skips ticks instead of slowing time down.
    `clock` (seconds) is time.monotonic unless given."""

    def __init__(self, session: Session, clock: Callable[[], float] | None = None):
        self.session = session
        self._clock = clock or time.monotonic
        self._origin: tuple[float, int] | None = None
        # True when the page plays by itself (the explorer's scrubber): the timer's beats then only tick there
        self.client_plays: Callable[[], bool] = lambda: False
        self.step_button = W.Button(description="Step", tooltip="advance one game tick", icon="step-forward",
                                    layout=W.Layout(width="80px"))
        self.step_rt_button = W.Button(description="+1 rt", tooltip="advance one redstone tick (2 game ticks)",
                                       layout=W.Layout(width="64px"))
        self.back_button = W.Button(description="Back", tooltip="show the previous recorded tick",
                                    icon="step-backward", layout=W.Layout(width="80px"))
        self.reset_button = W.Button(description="Reset", tooltip="start again with the current build",
                                     icon="undo", layout=W.Layout(width="80px"))
        self.press_button = W.Button(description="Press button", tooltip="press the stone button now",
                                     button_style="warning", icon="hand-pointer-o", layout=W.Layout(width="120px"))
        self.play = W.Play(value=0, min=0, max=10**9, step=1, interval=BEAT_MS, show_repeat=False,
                           description="play", tooltip="play / pause (space)")
        self.speed = W.IntSlider(value=10, min=1, max=20, description="gt/s", continuous_update=False,
                                 tooltip="playing speed in game ticks per second (20 gt/s is real time)",
                                 layout=W.Layout(width="210px"), style={"description_width": "36px"})
        self.counter = W.HTML()
        self._beat = 0
        self.step_button.on_click(lambda _: session.step(1))
        self.step_rt_button.on_click(lambda _: session.step(2))
        self.back_button.on_click(lambda _: session.seek(session.tick - 1))
        self.reset_button.on_click(lambda _: self._reset())
        self.press_button.on_click(lambda _: session.press())
        self.play.observe(self._on_beat, "value")
        self.play.observe(self._on_playing, "playing")
        self.speed.observe(lambda ch: self._restart_clock(), "value")
        session.observe(lambda ch: self.refresh(), ["tick", "end", "version"])  # a press changes neither tick nor end
        self.refresh()
        self.row1 = W.HBox([self.step_button, self.step_rt_button, self.back_button, self.press_button,
                            self.reset_button], layout=W.Layout(flex_flow="row wrap"))
        # the counter keeps one line: it never wraps its "· live" under another control
        self.counter.layout = W.Layout(flex="0 0 auto")
        row2 = W.HBox([self.play, self.speed, self.counter])
        super().__init__([self.row1, row2])

    def add_buttons(self, buttons) -> None:
        """More buttons at the end of the first row (the explorer's Run test and Evaluate)."""
        self.row1.children = (*self.row1.children, *buttons)

    def _restart_clock(self) -> None:
        self._origin = (self._clock(), self.session.tick) if self.play.playing else None

    def _on_playing(self, change) -> None:
        self._restart_clock()

    def _on_beat(self, change) -> None:
        # the Play widget's stop button sets the value back to 0: that is not a step
        if change["new"] <= change["old"] or self.client_plays():
            return
        self.advance()

    def advance(self) -> int:
        """One beat of play: step to where the clock says playing should be; returns the ticks stepped."""
        if self._origin is None:
            self._restart_clock()
            if self._origin is None:
                return 0
        t0, tick0 = self._origin
        target = tick0 + int((self._clock() - t0) * self.speed.value + 1e-6)
        n = target - self.session.tick
        if n < 0:  # the session was moved back (a click, a seek) while playing: continue from there
            self._origin = (self._clock(), self.session.tick)
            return 0
        if n:
            self.session.step(n)
        return n

    def toggle_play(self) -> None:
        self.play.playing = not self.play.playing

    def _reset(self) -> None:
        self.play.playing = False
        self.session.reset()

    def refresh(self) -> None:
        s = self.session
        self.counter.value = tick_text(s.tick, s.start, s.end, s.last_press(s.tick))
        self.back_button.disabled = s.tick <= s.start
