"""Time controls: step, play/pause with a speed, reset, press the button, and the tick counter in
game and redstone ticks. Stepping moves the session's cursor; the engine runs only for ticks that
were never recorded."""

from __future__ import annotations

import ipywidgets as W

from scicraft_viz.views.session import Session


def tick_text(tick: int, start: int, end: int, press: int | None) -> str:
    """The counter: game ticks, redstone ticks, and where this tick sits in the recording."""
    rt = tick / 2
    rt_txt = f"{rt:g}"
    parts = [f"<b>tick {tick} gt</b> · {rt_txt} rt"]
    if press is not None and tick >= press:
        parts.append(f"press +{tick - press} gt (+{(tick - press) / 2:g} rt)")
    parts.append("live" if tick == end else f"replaying {start}..{end}")
    return "<span class='scv-tick' style='font-family:monospace'>" + " · ".join(parts) + "</span>"


class Stepper(W.VBox):
    """Buttons bound to a session. `play` is an ipywidgets.Play whose frontend timer steps one
    game tick per beat; `speed` sets the beats per second."""

    def __init__(self, session: Session):
        self.session = session
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
        self.play = W.Play(value=0, min=0, max=10**9, step=1, interval=100, show_repeat=False,
                           description="play", tooltip="play / pause")
        self.speed = W.IntSlider(value=10, min=1, max=20, description="gt/s", continuous_update=False,
                                 layout=W.Layout(width="210px"), style={"description_width": "36px"})
        self.counter = W.HTML()
        self._beat = 0
        self.step_button.on_click(lambda _: session.step(1))
        self.step_rt_button.on_click(lambda _: session.step(2))
        self.back_button.on_click(lambda _: session.seek(session.tick - 1))
        self.reset_button.on_click(lambda _: self._reset())
        self.press_button.on_click(lambda _: session.press())
        self.play.observe(self._on_beat, "value")
        self.speed.observe(lambda ch: setattr(self.play, "interval", int(1000 / ch["new"])), "value")
        session.observe(lambda ch: self.refresh(), ["tick", "end"])
        self.refresh()
        row1 = W.HBox([self.step_button, self.step_rt_button, self.back_button, self.press_button, self.reset_button])
        row2 = W.HBox([self.play, self.speed, self.counter])
        super().__init__([row1, row2])

    def _on_beat(self, change) -> None:
        # the Play widget's stop button sets the value back to 0: that is not a step
        new, old = change["new"], change["old"]
        if new > old:
            self.session.step(new - old)

    def _reset(self) -> None:
        self.play.playing = False
        self.session.reset()

    def refresh(self) -> None:
        s = self.session
        self.counter.value = tick_text(s.tick, s.start, s.end, s.last_press(s.tick))
        self.back_button.disabled = s.tick <= s.start
