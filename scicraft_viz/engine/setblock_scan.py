"""A compiled reader for the usual build file: `setblock X Y Z STATE` lines, read into arrays.

`mcfunction.parse_mcfunction` defines the format and words every error; this scanner only takes the
lines it would take without a word of complaint and gives up (returns -1) on anything else, so the
caller falls back to that parser. It exists because evaluating a build is dominated, after the
simulation got fast, by reading its text: one pass over the bytes here replaces a regular-expression
match, three int() calls and a tuple per line.
"""

from __future__ import annotations

import numpy as np

from scicraft_viz.engine.kernels import jit

_TAB, _LF, _CR, _SPACE, _HASH, _SLASH, _MINUS = 9, 10, 13, 32, 35, 47, 45
_SETBLOCK = np.frombuffer(b"setblock", np.uint8)
_MODES = [np.frombuffer(w, np.uint8) for w in (b"replace", b"destroy", b"keep")]


@jit
def _blank(c):
    return c == _SPACE or c == _TAB


@jit
def _word_at(buf, i, end, word):
    """buf[i:] starts with word (within end)."""
    n = word.shape[0]
    if i + n > end:
        return False
    for k in range(n):
        if buf[i + k] != word[k]:
            return False
    return True


@jit
def _int_at(buf, i, end, out, row, col, max_coord):
    """Read -[0-9]{1,8} or [0-9]{1,9} at i into out[row, col]; the index after it, or -1."""
    neg = buf[i] == _MINUS if i < end else False
    j = i + 1 if neg else i
    v = 0
    k = j
    while k < end and 48 <= buf[k] <= 57:
        v = v * 10 + (int(buf[k]) - 48)  # int(): plain-Python runs (SCICRAFT_NOJIT) must not wrap a uint8
        k += 1
    digits = k - j
    if digits == 0 or digits > (8 if neg else 9) or v > max_coord:
        return -1
    out[row, col] = -v if neg else v
    return k


@jit
def _same(buf, a0, a1, b0, b1):
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):
        if buf[a0 + k] != buf[b0 + k]:
            return False
    return True


@jit
def scan(buf, setblock, modes0, modes1, modes2, max_coord, max_blocks, xyz, wid, wspan, table):
    """Read every line of buf (ASCII bytes). Lines that are blank or start with '#' (after blanks) are
    skipped; every other line must be a plain setblock line. Fills xyz[i], wid[i] (index of the
    line's state word among the distinct words) and wspan[w] = (start, end) of each distinct word;
    returns (blocks, distinct words), or (-1, line number) at the first line this scanner does not take.
    `table` is scratch for the word hash table (a power of two, at least twice the lines, set to -1)."""
    n = buf.shape[0]
    mask = table.shape[0] - 1
    nb = 0
    nw = 0
    line = 0
    s = 0
    while s < n or (s == n and line == 0 and n == 0):
        line += 1
        e = s
        while e < n and buf[e] != _LF:
            e += 1
        nxt = e + 1
        if e > s and buf[e - 1] == _CR:
            e -= 1
        i = s
        while i < e and _blank(buf[i]):
            i += 1
        if i == e:  # blank (a lone \r before the \n is part of the line ending)
            s = nxt
            continue
        if buf[i] == _HASH:
            s = nxt
            continue
        if nb >= max_blocks:
            return -1, line
        if buf[i] == _SLASH:
            i += 1
        if not _word_at(buf, i, e, setblock):
            return -1, line
        i += setblock.shape[0]
        for col in range(3):
            if i >= e or not _blank(buf[i]):
                return -1, line
            while i < e and _blank(buf[i]):
                i += 1
            i = _int_at(buf, i, e, xyz, nb, col, max_coord)
            if i < 0:
                return -1, line
        if i >= e or not _blank(buf[i]):
            return -1, line
        while i < e and _blank(buf[i]):
            i += 1
        w0 = i
        while i < e and 33 <= buf[i] <= 126:
            i += 1
        w1 = i
        if w1 == w0:
            return -1, line
        while i < e and _blank(buf[i]):
            i += 1
        if i < e and i > w1:  # a mode word may follow the state, after a blank
            if _word_at(buf, i, e, modes0):
                i += modes0.shape[0]
            elif _word_at(buf, i, e, modes1):
                i += modes1.shape[0]
            elif _word_at(buf, i, e, modes2):
                i += modes2.shape[0]
            else:
                return -1, line
            while i < e and _blank(buf[i]):
                i += 1
        if i != e:
            return -1, line
        # the word's id: a hash table over its bytes, compared in full, so that no two words share an id
        slot = 0
        for k in range(w0, w1):
            slot = (slot * 31 + int(buf[k])) & mask
        while True:
            w = table[slot]
            if w < 0:
                table[slot] = nw
                wspan[nw, 0] = w0
                wspan[nw, 1] = w1
                w = nw
                nw += 1
                break
            if _same(buf, wspan[w, 0], wspan[w, 1], w0, w1):
                break
            slot = (slot + 1) & mask
        wid[nb] = w
        nb += 1
        s = nxt
    return nb, nw


def scan_setblocks(text: str, max_coord: int, max_blocks: int) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """(xyz (n, 3) int64, word index per block (n,), distinct state words) for text made only of plain
    setblock lines, comments and blank lines; None for anything else (the caller's parser decides)."""
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        return None
    buf = np.frombuffer(raw, np.uint8)
    # room for every block the text can hold, and no more: a file of blank lines allocates nothing big
    rows = max(0, min(raw.count(b"\n") + 1, max_blocks))
    xyz = np.empty((rows, 3), np.int64)
    wid = np.empty(rows, np.int64)
    wspan = np.empty((rows, 2), np.int64)
    table = np.full(1 << max(4, (2 * rows).bit_length()), -1, np.int64)
    nb, nw = scan(buf, _SETBLOCK, *_MODES, max_coord, max_blocks, xyz, wid, wspan, table)
    if nb < 0:
        return None
    return xyz[:nb], wid[:nb], [text[a:b] for a, b in wspan[:nw].tolist()]
