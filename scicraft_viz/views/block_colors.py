"""Colours of vanilla's full, transparent and partial blocks, from the families in their names: the 16
dye colours (concrete, wool, terracotta, stained glass), wood species (planks, logs, slabs, stairs) and
stone-like materials. A name matching no family keeps the engine category's colour (stone or glass)."""

from __future__ import annotations

# Minecraft's dye colours (the map colours of concrete, roughly), as 0-1 RGB.
DYES = {
    "white": (0.86, 0.87, 0.87), "orange": (0.88, 0.38, 0.0), "magenta": (0.66, 0.19, 0.62),
    "light_blue": (0.14, 0.54, 0.78), "yellow": (0.94, 0.69, 0.08), "lime": (0.37, 0.66, 0.09),
    "pink": (0.84, 0.40, 0.56), "gray": (0.21, 0.22, 0.25), "light_gray": (0.49, 0.49, 0.45),
    "cyan": (0.08, 0.47, 0.53), "purple": (0.39, 0.12, 0.61), "blue": (0.17, 0.18, 0.56),
    "brown": (0.38, 0.23, 0.12), "green": (0.29, 0.36, 0.14), "red": (0.56, 0.13, 0.13), "black": (0.03, 0.04, 0.06),
}
WOODS = {
    "oak": (0.72, 0.58, 0.35), "spruce": (0.45, 0.33, 0.20), "birch": (0.77, 0.70, 0.48),
    "jungle": (0.67, 0.48, 0.33), "acacia": (0.66, 0.36, 0.20), "dark_oak": (0.26, 0.17, 0.08),
    "mangrove": (0.46, 0.21, 0.19), "cherry": (0.89, 0.70, 0.68), "bamboo": (0.76, 0.68, 0.31),
    "crimson": (0.40, 0.19, 0.27), "warped": (0.17, 0.41, 0.39),
}
# Materials by a word in the name, the first match wins (so 'red_sandstone' before 'sandstone').
MATERIALS = (
    ("cauldron", (0.24, 0.24, 0.26)), ("water", (0.20, 0.38, 0.90)), ("cake", (0.93, 0.90, 0.86)),
    ("composter", (0.55, 0.38, 0.20)),
    ("end_portal_frame", (0.36, 0.48, 0.40)), ("respawn_anchor", (0.16, 0.06, 0.30)), ("beehive", (0.71, 0.56, 0.33)),
    ("bee_nest", (0.80, 0.66, 0.30)), ("lectern", (0.62, 0.47, 0.28)), ("jukebox", (0.40, 0.27, 0.19)),
    ("red_sandstone", (0.73, 0.39, 0.12)), ("sandstone", (0.86, 0.81, 0.60)), ("quartz", (0.92, 0.90, 0.86)),
    ("crying_obsidian", (0.20, 0.05, 0.35)), ("obsidian", (0.08, 0.06, 0.13)), ("sea_lantern", (0.80, 0.88, 0.86)),
    ("glowstone", (0.98, 0.82, 0.50)), ("prismarine", (0.39, 0.63, 0.56)), ("purpur", (0.66, 0.48, 0.66)),
    ("nether_brick", (0.19, 0.09, 0.11)), ("brick", (0.59, 0.32, 0.26)), ("deepslate", (0.27, 0.27, 0.29)),
    ("blackstone", (0.17, 0.14, 0.17)), ("end_stone", (0.86, 0.87, 0.62)), ("copper", (0.75, 0.42, 0.31)),
    ("terracotta", (0.60, 0.37, 0.26)), ("ice", (0.57, 0.72, 0.98)), ("leaves", (0.25, 0.50, 0.16)),
    ("tinted_glass", (0.17, 0.15, 0.19)), ("gold", (0.96, 0.80, 0.24)), ("iron", (0.85, 0.85, 0.85)),
    ("diamond", (0.40, 0.86, 0.84)), ("emerald", (0.16, 0.78, 0.38)), ("lapis", (0.12, 0.28, 0.64)),
    ("redstone", (0.68, 0.10, 0.06)), ("coal", (0.10, 0.10, 0.10)), ("slime", (0.44, 0.75, 0.36)),
    ("honey", (0.98, 0.68, 0.13)),
    ("snow", (0.96, 0.98, 0.98)), ("dirt", (0.53, 0.38, 0.26)), ("grass", (0.42, 0.62, 0.29)),
    ("mud", (0.34, 0.30, 0.33)), ("netherrack", (0.44, 0.21, 0.21)), ("andesite", (0.53, 0.53, 0.53)),
    ("diorite", (0.74, 0.74, 0.74)), ("granite", (0.58, 0.40, 0.33)), ("tuff", (0.42, 0.43, 0.39)),
    ("calcite", (0.87, 0.88, 0.86)), ("amethyst", (0.52, 0.38, 0.73)), ("bookshelf", (0.45, 0.35, 0.22)),
    ("smooth_stone", (0.62, 0.62, 0.62)), ("cobble", (0.48, 0.48, 0.48)),
    # decorative blocks with no colour word of their own (the iron of bars and lanterns, a pot's clay)
    ("lantern", (0.23, 0.24, 0.28)), ("chain", (0.25, 0.26, 0.30)), ("flower_pot", (0.49, 0.27, 0.20)),
    ("potted", (0.49, 0.27, 0.20)), ("ladder", (0.60, 0.47, 0.28)), ("candle", (0.90, 0.84, 0.68)),
    ("torch", (0.40, 0.29, 0.15)),
    # docs/redstone.md sections 52-55: shulker shell purple, bone, the heads' own faces, copper, hook wood
    ("shulker_box", (0.59, 0.41, 0.59)), ("wither_skeleton", (0.20, 0.20, 0.20)), ("skeleton", (0.80, 0.80, 0.76)),
    ("zombie", (0.30, 0.48, 0.25)), ("creeper", (0.37, 0.72, 0.29)), ("player_", (0.60, 0.42, 0.30)),
    ("dragon", (0.12, 0.10, 0.14)), ("piglin", (0.87, 0.58, 0.55)), ("lightning_rod", (0.75, 0.42, 0.31)),
    ("tripwire", (0.55, 0.45, 0.32)),
    # docs/redstone.md sections 83-84: a bell's gold, a turtle egg's shell, dripleaf green, lava
    ("bell", (0.90, 0.72, 0.20)), ("turtle_egg", (0.90, 0.89, 0.75)), ("dripleaf", (0.35, 0.55, 0.20)),
    ("lava", (0.85, 0.35, 0.05)),
)


def block_color(name: str) -> tuple[float, float, float] | None:
    """A block's colour from its name (without 'minecraft:'), or None when no family matches."""
    for dye in sorted(DYES, key=len, reverse=True):  # light_blue before blue
        if name.startswith(dye + "_") and not name.startswith(dye + "_sandstone"):
            rgb = DYES[dye]
            if name.endswith("terracotta"):  # terracotta is the dye dulled towards clay
                return tuple(0.55 * c + 0.45 * t for c, t in zip(rgb, (0.60, 0.37, 0.26)))  # type: ignore[return-value]
            return rgb
    for wood in sorted(WOODS, key=len, reverse=True):  # dark_oak before oak
        if name.startswith((wood + "_", "stripped_" + wood + "_")):
            return WOODS[wood]
    for word, rgb in MATERIALS:
        if word in name:
            return rgb
    return None
