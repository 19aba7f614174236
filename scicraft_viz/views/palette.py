"""The block palette: which block a double-click places, with its facing, delay and face, and the
tool (place, remove, use). It turns a Pick into the block state to place."""

from __future__ import annotations

import ipywidgets as W

from scicraft_viz.views.canvas import Pick

BLOCKS = {
    "stone": "stone",
    "glass": "glass",
    "dust": "redstone_wire",
    "repeater": "redstone_repeater",
    "torch": "redstone_torch",
    "lamp": "redstone_lamp",
    "button": "stone_button",
    "lever": "lever",
    "redstone block": "redstone_block",
    "comparator": "comparator",
}
TOOLS = ("place", "remove", "use")
FACES = ("auto", "floor", "wall", "ceiling")
FACINGS = ("auto", "north", "east", "south", "west")  # auto: from the camera, as a player's placement
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
# hotkeys for the block choice, in the palette's order (only the task's blocks are listed)
BLOCK_KEYS = "1234567890"


class Palette(W.VBox):
    """Block, facing, delay and face choices; `state_for(pick)` gives the block state to place."""

    def __init__(self, blocks: list[str] | None = None):
        names = [b for b in BLOCKS if blocks is None or BLOCKS[b] in blocks or f"minecraft:{BLOCKS[b]}" in blocks]
        self.tool = W.ToggleButtons(options=list(TOOLS), value="place", description="tool",
                                    tooltips=["double-click a face to place the chosen block against it",
                                              "double-click a block to remove it",
                                              "double-click a button, lever, repeater, comparator or lone dust "
                                              "to use it"],
                                    style=W.ToggleButtonsStyle(button_width="76px", description_width="48px"))
        self.block = W.ToggleButtons(options=names, value="dust" if "dust" in names else names[0],
                                     description="block", tooltips=[f"place minecraft:{BLOCKS[b]}" for b in names],
                                     style=W.ToggleButtonsStyle(button_width="118px", description_width="48px"),
                                     layout=W.Layout(width="300px"))
        self.facing = W.Dropdown(options=list(FACINGS), value="west", description="facing",
                                 tooltip="a repeater takes its input from this side; a wall torch, button or lever "
                                         "points this way; auto: from the camera, as in the game",
                                 style={"description_width": "48px"}, layout=W.Layout(width="190px"))
        self.delay = W.ToggleButtons(options=[1, 2, 3, 4], value=1, description="delay",
                                     tooltips=[f"{d} redstone tick{'s' if d > 1 else ''} = {2 * d} game ticks"
                                               for d in (1, 2, 3, 4)],
                                     style=W.ToggleButtonsStyle(button_width="34px", description_width="48px"))
        self.face = W.Dropdown(options=list(FACES), value="auto", description="face",
                               tooltip="what a torch, button or lever is attached to (auto: the clicked face)",
                               style={"description_width": "48px"}, layout=W.Layout(width="190px"))
        self.hint = W.HTML()
        for w in (self.block, self.facing, self.delay, self.face, self.tool):
            w.observe(lambda ch: self._update_hint(), "value")
        self._update_hint()
        super().__init__([self.tool, self.block, self.facing, self.delay, self.face, self.hint])

    def _update_hint(self) -> None:
        b = BLOCKS[self.block.value]
        if self.tool.value != "place":
            text = {"remove": "double-click a block to remove it (what it carries pops off)",
                    "use": "double-click: press a button, flip a lever, cycle a repeater's delay, switch a "
                           "comparator between compare and subtract"}[self.tool.value]
        elif b in ("comparator", "redstone_repeater"):
            if self.facing.value == "auto":
                text = "output points the way the camera looks (input on the side nearest you)"
            else:
                text = f"input from the {self.facing.value}, output to the {OPPOSITE[self.facing.value]}"
            text += (", sides compared (use switches compare/subtract)" if b == "comparator" else
                     f"; delay {self.delay.value} rt = {2 * self.delay.value} gt")
        elif b in ("redstone_torch", "stone_button", "lever"):
            text = ("auto face: on top of the clicked block, or on its side when you click a side"
                    if self.face.value == "auto" else f"face={self.face.value}, facing={self.facing.value}")
        else:
            text = f"places minecraft:{b}"
        self.hint.value = f"<span style='font-size:11px;color:#888'>{text}</span>"
        show = {"redstone_repeater": (1, 1, 0), "comparator": (1, 0, 0), "redstone_torch": (1, 0, 1),
                "stone_button": (1, 0, 1), "lever": (1, 0, 1)}.get(b, (0, 0, 0))
        for w, on in zip((self.facing, self.delay, self.face), show):
            w.layout.display = None if on else "none"

    def choose(self, block: str, facing: str | None = None, delay: int | None = None, face: str | None = None,
               tool: str = "place") -> Palette:
        """Select by name (palette name like 'repeater' or block id like 'redstone_repeater')."""
        names = {v: k for k, v in BLOCKS.items()}
        self.block.value = names.get(block.removeprefix("minecraft:"), block)
        if facing is not None:
            self.facing.value = facing
        if delay is not None:
            self.delay.value = delay
        if face is not None:
            self.face.value = face
        self.tool.value = tool
        return self

    def on_key(self, key: str) -> str | None:
        """A hotkey: 1-9 and 0 choose the palette's blocks in order, R/r turns the facing clockwise/back
        (auto, north, east, south, west), D the repeater's delay, F the face, T the tool. Returns what
        it changed, in words, or None for a key it does not know."""
        names = list(self.block.options)
        if len(key) == 1 and key in BLOCK_KEYS and BLOCK_KEYS.index(key) < len(names):
            self.block.value = names[BLOCK_KEYS.index(key)]
            self.tool.value = "place"
            return f"block: {self.block.value}"
        cycles = {"r": (self.facing, 1), "R": (self.facing, -1), "d": (self.delay, 1), "D": (self.delay, -1),
                  "f": (self.face, 1), "F": (self.face, -1), "t": (self.tool, 1), "T": (self.tool, -1)}
        if key not in cycles:
            return None
        w, step = cycles[key]
        opts = list(w.options)
        w.value = opts[(opts.index(w.value) + step) % len(opts)]
        return f"{w.description}: {w.value}"

    def tool_for(self, pick: Pick) -> str:
        """The tool a double-click means: shift removes, ctrl/alt/meta uses, else the chosen tool."""
        if pick.shift:
            return "remove"
        if pick.ctrl or pick.alt or pick.meta:
            return "use"
        return self.tool.value

    def state_for(self, pick: Pick, look: str | None = None) -> str:
        """The block state a double-click on this face places. `look` is the horizontal direction the
        camera looks (north, east, south or west): facing "auto" takes it as Minecraft takes the
        player's, so a repeater or comparator gets facing = the opposite of `look` (its input on the
        side nearest the player, its output pointing away), a button or lever on a floor or ceiling
        facing = `look`, and anything on a wall faces away from the wall. Raises ValueError for
        impossible choices (a torch under a ceiling, facing auto without a camera)."""
        b = BLOCKS[self.block.value]

        def chosen(default_of_look) -> str:
            if self.facing.value != "auto":
                return self.facing.value
            if look not in OPPOSITE:
                raise ValueError("facing auto follows the camera, and there is none here: choose a facing")
            return default_of_look(look)

        if b == "redstone_repeater":
            return f"redstone_repeater[delay={self.delay.value},facing={chosen(OPPOSITE.get)}]"
        if b == "comparator":
            return f"comparator[facing={chosen(OPPOSITE.get)}]"
        if b not in ("redstone_torch", "stone_button", "lever"):
            return b
        face = self.face.value
        if face == "auto":
            face = {(0, 1, 0): "floor", (0, -1, 0): "ceiling"}.get(pick.normal, "wall")
        if b == "redstone_torch":
            if face == "ceiling":
                raise ValueError("a torch cannot hang under a block: click a top or side face")
            if face == "floor":
                return "redstone_torch"
            facing = pick.facing if self.face.value == "auto" else None
            return f"redstone_wall_torch[facing={facing or chosen(lambda d: pick.facing or OPPOSITE[d])}]"
        if face == "wall":
            # on a wall it faces away from the wall: the clicked side, or (a top face) back towards the player
            facing = pick.facing if self.face.value == "auto" else None
            return f"{b}[face=wall,facing={facing or chosen(lambda d: pick.facing or OPPOSITE[d])}]"
        return f"{b}[face={face},facing={chosen(lambda d: d)}]"
