"""Scrubbing in the browser: the explorer sends its recording to the page once, and Step, Back,
+1 rt, a timeline click and Play change the tick there, without waiting for the kernel.

`Scrubber` holds, for the run of recorded rows drawn with the canvas's current geometry, the 3D
canvas's vertex colours (the first row whole, then per row the vertices that changed, old and new
values, so the page can walk either way), the heatmap's power grid, marker colours and hover texts
(equal consecutive rows shared), and what the counter and the timeline cursor need. The page draws a
tick by writing those colours into the pythreejs buffers it already shows and by sending the same
update messages plotly's own widget would; then it tells the kernel the tick, and the kernel brings its
side up to date without sending any of it back (`quiet`): the contract verdict, the event log, the
meters and the violation outlines follow from there. A tick outside the run (never recorded, or
recorded with another block arrangement) goes to the kernel as before."""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager

import anywidget
import ipywidgets as W
import numpy as np
import traitlets as T

from scicraft_viz.views import geometry as G
from scicraft_viz.views.entities import _ENT_TEMPLATE, _ENT_TOP, ENTITY_SHADE, ENTITY_VERTICES, entity_records
from scicraft_viz.views.heatmap import DUST_SCALE
from scicraft_viz.views.multimeter import EVENTS_NOTES, EVENTS_TITLE, MAX_EVENTS

_PLOTLY_SENDS = ("_send_restyle_msg", "_send_relayout_msg", "_send_update_msg")


def _never(*args, **kw):
    return False


def _nothing(*args, **kw):
    return None


@contextmanager
def quiet(*widgets):
    """Change these widgets in Python without sending the change to the page, because the page shows it
    already (the scrubber drew that tick there). ipywidgets' own check for a value the page just sent
    (`_should_send_property`) answers no; a plotly FigureWidget keeps its update messages."""
    done = []
    try:
        for w in widgets:
            names = _PLOTLY_SENDS if hasattr(w, "_send_update_msg") else ("_should_send_property",)
            for name in names:
                done.append((w, name, w.__dict__.get(name)))
                setattr(w, name, _nothing if name in _PLOTLY_SENDS else _never)
        yield
    finally:
        for w, name, before in reversed(done):
            if before is None:
                w.__dict__.pop(name, None)
            else:
                w.__dict__[name] = before


def canvas_colors(canvas, frame) -> np.ndarray:
    """The canvas's colour buffers for a frame of its current geometry, end to end: (sum of
    capacities, 3) uint8, exactly what `Canvas.show` would write into them."""
    cols = G.vertex_colors(canvas._geom, frame)
    bufs = canvas._buffers
    out = np.zeros((sum(b.cap for b in bufs.values()), 3), np.uint8)
    o = 0
    for name, b in bufs.items():
        c = cols[name]
        out[o : o + len(c)] = c
        o += b.cap
    return out


def _run(layout_of: np.ndarray, row: int) -> tuple[int, int]:
    """The run of equal layout ids around `row`: first and last row."""
    lid = layout_of[row]
    a = row
    while a > 0 and layout_of[a - 1] == lid:
        a -= 1
    b = row
    while b + 1 < len(layout_of) and layout_of[b + 1] == lid:
        b += 1
    return a, b


_REFS = ("renderer", "counter", "back", "heat_fig", "heat_slider", "timeline_fig", "play", "speed", "step",
         "step_rt", "events_title")


def _ref():
    return T.Instance(W.Widget, allow_none=True).tag(sync=True, **W.widget_serialization)


class Scrubber(anywidget.AnyWidget):
    """The page-side copy of an explorer's recording (see the module's text). `tick` is the tick the
    page shows; `client` turns true once a page has loaded the scrubber (then Play runs in the page);
    `load()` re-encodes what changed; `advance` requests from the page reach `on_advance` handlers."""

    _esm = """
const ref = s => (typeof s === 'string' && s.startsWith('IPY_MODEL_')) ? s.slice(10) : null;
const bytes = v => !v ? new Uint8Array(0) : v instanceof DataView ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  : v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset || 0, v.byteLength);
const u32 = v => { const b = bytes(v); return new Uint32Array(b.slice().buffer); };
const f64 = v => { const b = bytes(v); return new Float64Array(b.slice().buffer); };
const plotOf = v => v && v.el && (v.el.classList.contains('js-plotly-plot') ? v.el
                                  : v.el.querySelector('.js-plotly-plot'));
const REFS = %REFS%;
// Python's f"{x:g}" for the halves of a tick count
const g = x => String(x);

function initialize({ model }) {
  const wm = model.widget_manager;
  const M = {};
  let attrs = [];
  let entAttrs = [];  // the canvas's entity mesh: positions, colours
  let D = null;
  // foreign: the buffers hold colours the kernel sent (not the row D.row), so the next tick writes them whole
  const st = { shown: model.get('tick'), playing: false, origin: null, waiting: false, sent: 0, timer: null,
               foreign: true, slow: null, beats: [], loads: 0, slid: 0, hold: null, asked: new Map(),
               heatPlots: new Set(), ent: null, entForeign: true };

  function load() {  // decoded again whenever the kernel sent a new recording (a new meta object)
    const meta = model.get('meta');
    st.loads += 1;
    if (!meta || meta.first === undefined) { D = null; return; }
    D = { meta, base: bytes(model.get('colors')), idx: u32(model.get('delta_index')),
          old: bytes(model.get('delta_old')), nu: bytes(model.get('delta_new')),
          start: u32(model.get('delta_start')), full: null, row: -1,
          ent: { idx: u32(model.get('ent_index')), data: f64(model.get('ent_data')) } };
    st.entForeign = true;
  }
  function ready() {
    if (!D || D.meta !== model.get('meta')) load();
    if (!D || !M.renderer || attrs.length !== D.meta.caps.length) return false;
    const e = D.meta.ent;
    if (!e || entAttrs.length !== 2 || !entAttrs.every(a => a.obj && a.obj.array
                                                        && a.obj.array.length === 3 * e.vertices * e.cap)) return false;
    return attrs.every((a, i) => a.obj && a.obj.array && a.obj.array.length === 3 * D.meta.caps[i]);
  }
  // The minecarts and item entities of row k, written into the entity mesh as entities.entity_vertices does from the
  // same records (a box's low corner and size, the colours of its sides and top); true when the mesh changed.
  // Rows with the same entities share their records, so most ticks of items at rest write nothing.
  function entities(k) {
    const e = D.meta.ent, s = D.ent.idx[2 * k], n = D.ent.idx[2 * k + 1];
    if (!st.entForeign && st.ent && st.ent.s === s && st.ent.n === n && st.ent.D === D) return false;
    st.entForeign = false;
    st.ent = { s, n, D };
    const pos = entAttrs[0].obj.array, col = entAttrs[1].obj.array, V = e.vertices, T = e.template, S = e.shade;
    pos.fill(0); col.fill(0);
    for (let i = 0; i < n; i++) {
      const r = D.ent.data.subarray(12 * (s + i), 12 * (s + i + 1));
      for (let v = 0; v < V; v++) {
        const o = 3 * (V * i + v);
        for (let a = 0; a < 3; a++) {
          pos[o + a] = r[a] + T[v][a] * r[3 + a];
          col[o + a] = Math.floor((e.top[v] ? r[9 + a] : r[6 + a]) * S[v] + 0.5);
        }
      }
    }
    entAttrs.forEach(a => { a.obj.needsUpdate = true; });
    return true;
  }
  const canShow = t => ready() && t >= D.meta.first && t <= D.meta.last;
  function delta(r, src) {  // delta r turns row r - 1 into row r
    const f = D.full;
    for (let j = r > 1 ? D.start[r - 2] : 0, e = D.start[r - 1]; j < e; j++) {
      const v = 3 * D.idx[j];
      f[v] = src[3 * j]; f[v + 1] = src[3 * j + 1]; f[v + 2] = src[3 * j + 2];
    }
  }
  function colorsAt(k) {  // the colours of row k; D.changed: whether any vertex differs from the row before
    D.changed = D.full === null;
    if (D.full === null) { D.full = D.base.slice(); D.row = 0; }
    const changes = r => D.start[r - 1] > (r > 1 ? D.start[r - 2] : 0);
    while (D.row < k) { D.row += 1; D.changed = D.changed || changes(D.row); delta(D.row, D.nu); }
    while (D.row > k) { D.changed = D.changed || changes(D.row); delta(D.row, D.old); D.row -= 1; }
    return D.full;
  }
  function counter(t) {
    const m = D.meta;
    const parts = [`<b>tick ${t} gt</b> · ${g(t / 2)} rt`];
    let press = null;
    for (const p of m.presses) if (p <= t) press = p;
    if (press !== null) parts.push(`press +${t - press} gt (+${g((t - press) / 2)} rt)`);
    parts.push(t === m.end ? 'live' : `replaying ${m.start}..${m.end}`);
    if (st.playing && st.slow) parts.push(`<span class='scv-slow' style='color:#c92a2a'>slowed to ${st.slow} gt/s ` +
                                          'to draw every tick</span>');
    return "<span class='scv-tick' style='font-family:monospace;white-space:nowrap'>" + parts.join(' · ') + '</span>';
  }
  function show(t) {
    const k = t - D.meta.first;
    const full = colorsAt(k);
    // the 3D view is drawn again only when its colours change: in software WebGL a draw is most of a
    // frame's time, and most ticks of a circuit change few blocks or none (pythreejs draws on the next
    // animation frame, once however often it is asked)
    let redraw = entities(k);
    if (D.changed || st.foreign) {
      st.foreign = false;
      let o = 0;
      attrs.forEach((a, i) => {
        a.obj.array.set(full.subarray(o, o + 3 * D.meta.caps[i]));  // the model's array shares this memory
        a.obj.needsUpdate = true;
        o += 3 * D.meta.caps[i];
      });
      redraw = true;
    }
    if (redraw) M.renderer.trigger('rerender', M.renderer, {});
    st.shown = t;
    cursor();
    asOf(t);
    heat(t, k);
    if (M.counter) M.counter.set('value', counter(t));
    eventsTitle(t, k);
    if (M.back) M.back.set('disabled', t <= D.meta.start);
    slider(t, false);
  }
  // The event log's header names the tick the counter shows, in the same frame (multimeter.events_title: the
  // kernel's own header for a tick the page drew is kept without being sent); its list follows from the kernel.
  const fill = (text, v) => text.replace(/\\{(\\w+)\\}/g, (m, x) => (x in v ? String(v[x]) : m));
  function eventsTitle(t, k) {
    const e = D.meta.events;
    if (!e || !M.events_title) return;
    const n = e.counts[k] || 0;
    const note = fill(e.notes[st.playing ? 'playing' : n > e.max ? 'more' : 'paused'], { n, m: e.max });
    M.events_title.set('value', fill(e.title, { t, note }));
  }
  // The heatmap's tick slider checks whether its readout overflows (it reads the readout's scrollWidth), which
  // lays the whole page out again in the middle of the frame: while playing it follows a few times a second
  // (the heatmap's cells and title follow every tick), and exactly on pause.
  function slider(t, now) {
    if (!M.heat_slider || M.heat_slider.get('value') === t) return;
    if (!now && st.playing && performance.now() - st.slid < 250) return;
    st.slid = performance.now();
    M.heat_slider.set('value', t);
  }
  // plotly redraws a figure in tens of milliseconds: the heatmap is drawn after the canvas, the counter and
  // the cursor have been painted, and only for the newest tick asked for meanwhile
  const hex = c => [1, 3, 5].map(i => parseInt(c.slice(i, i + 2), 16));
  function scaleColor(scale, v) {  // plotly's colorscale: linear in RGB between its stops
    let i = 1;
    while (i < scale.length - 1 && v > scale[i][0]) i += 1;
    const [a, ca] = scale[i - 1], [b, cb] = scale[i];
    const f = b > a ? Math.min(1, Math.max(0, (v - a) / (b - a))) : 0;
    const x = hex(ca), y = hex(cb);
    return `rgb(${x.map((c, j) => Math.round(c + (y[j] - c) * f)).join(',')})`;
  }
  // Until plotly has redrawn the heatmap, the new tick is painted over it: the dust cells on a canvas laid
  // over the plot area (placed from plotly's own axes), the markers' fill and the title's text.
  function heatNow(t, i, h) {
    const p = h.payloads[i];
    for (const v of Object.values((M.heat_fig && M.heat_fig.views) || {})) Promise.resolve(v).then(view => {
      const gd = plotOf(view), L = gd && gd._fullLayout;
      if (!L || !L.xaxis || !L.yaxis) return;
      st.heatPlots.add(gd);
      const xa = L.xaxis, ya = L.yaxis;
      let cv = gd.querySelector('canvas.scv-heat');
      if (!cv) {
        cv = document.createElement('canvas');
        cv.className = 'scv-heat';
        Object.assign(cv.style, { position: 'absolute', pointerEvents: 'none', zIndex: 5 });
        (gd.querySelector('.svg-container') || gd).appendChild(cv);
      }
      Object.assign(cv.style, { left: `${xa._offset}px`, top: `${ya._offset}px`, display: 'block' });
      if (cv.width !== Math.round(xa._length)) cv.width = xa._length;
      if (cv.height !== Math.round(ya._length)) cv.height = ya._length;
      cv.dataset.tick = String(t);
      const title = gd.querySelector('.gtitle');
      if (title) title.textContent = `dust power on layer y=${h.y} · tick ${t} gt`;
      // the same cells as the tick painted last (most ticks): only the title changes
      const key = `${i} ${xa._offset} ${ya._offset} ${xa._length} ${ya._length} ${st.loads}`;
      if (cv.dataset.key === key) return;
      cv.dataset.key = key;
      const c = cv.getContext('2d');
      c.clearRect(0, 0, cv.width, cv.height);
      c.font = '10px "Open Sans", verdana, arial, sans-serif'; c.textAlign = 'center'; c.textBaseline = 'middle';
      p.z.forEach((row, iz) => row.forEach((v, ix) => {
        if (v === null) return;
        const x = h.x0 + ix, z = h.z0 + iz;
        const x0 = xa.l2p(x - 0.5), x1 = xa.l2p(x + 0.5), y0 = ya.l2p(z - 0.5), y1 = ya.l2p(z + 0.5);
        c.fillStyle = scaleColor(h.scale, v / 15);
        c.fillRect(Math.min(x0, x1) + 0.5, Math.min(y0, y1) + 0.5, Math.abs(x1 - x0) - 1, Math.abs(y1 - y0) - 1);
        if (h.numbers) { c.fillStyle = '#ffffff'; c.fillText(String(v), (x0 + x1) / 2, (y0 + y1) / 2); }
      }));
      const pts = gd.querySelectorAll('.scatterlayer .trace:first-child path.point');
      if (pts.length === p.color.length) pts.forEach((e, j) => { e.style.fill = p.color[j]; });
    });
  }
  function heatDone(t) {  // plotly drew tick t (null: the kernel redrew it): the painted layer is not needed
    for (const v of Object.values((M.heat_fig && M.heat_fig.views) || {})) Promise.resolve(v).then(view => {
      const cv = view && view.el && view.el.querySelector('canvas.scv-heat');
      if (cv && (t === null || cv.dataset.tick === String(t))) { cv.style.display = 'none'; cv.dataset.key = ''; }
    });
  }
  function heat(t, k) {
    st.heat = { t, k, meta: D.meta };
    const h = D.meta.heat;
    if (h) heatNow(t, h.index[k], h);
    // while playing, plotly's own redraw (which holds the page for tens of ms) waits for the pause
    if (st.heatBusy || !M.heat_fig || st.playing) return;
    st.heatBusy = true;
    requestAnimationFrame(() => setTimeout(() => {
      const w = st.heat, h = w.meta.heat;
      st.heatBusy = false;
      if (!h) return;
      // only once plotly has drawn the figure's traces: an update during its first draw leaves it empty
      const drawn = gd => gd._fullLayout && gd.data && gd.data.length >= 2;
      if (!st.heatPlots.size || !Array.from(st.heatPlots).every(drawn)) {
        setTimeout(() => heat(st.heat.t, st.heat.k), 250);
        return;
      }
      const p = h.payloads[h.index[w.k]];
      M.heat_fig.set('_py2js_update', {
        style_data: { z: [p.z, undefined], text: [undefined, p.text], 'marker.color': [undefined, p.color] },
        layout_data: { 'title.text': `dust power on layer y=${h.y} · tick ${w.t} gt` },
        style_traces: [0, 1], trace_edit_id: -1, layout_edit_id: -1 });
      M.heat_fig.set('_py2js_update', null);
      if (st.heat !== w) heat(st.heat.t, st.heat.k); else heatDone(w.t);
    }, 0));
  }
  // The timeline's title ends with the tick its verdict is judged at while the test runs ("(as of press +N gt)",
  // N counted from the session's last press, LampTimeline.title): the page writes it as it draws a tick, and the
  // kernel keeps the same title without sending it (a plotly relayout per tick would hold each frame).
  function asOf(t) {
    const presses = D.meta.presses || [];
    if (!presses.length) return;
    const when = ` (as of press +${Math.max(0, t - presses[presses.length - 1])} gt)`;
    for (const gd of lines.keys()) {
      const text = gd.layout && gd.layout.title && gd.layout.title.text;
      const m = typeof text === 'string' && / \\(as of press \\+\\d+ gt\\)$/.exec(text);
      if (!m || text.slice(m.index) === when) continue;
      gd.layout.title.text = text.slice(0, m.index) + when;  // what plotly draws if it lays the figure out again
      const el = gd.querySelector('.gtitle');
      if (el) el.textContent = gd.layout.title.text;
    }
  }
  // the timeline's tick line is a thin element over the plot, placed from plotly's own axis (a plotly
  // restyle per tick would be as slow as the heatmap); plotly's own line (trace 6) is hidden once this shows
  const lines = new Map();
  const NICE = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];
  const dtickOf = span => NICE.find(d => span / d <= 14) || Math.floor(span / 14) + 1;
  function reach(a, t) {  // LampTimeline.tick_range: timeline.reach() out to the held tick
    let lo = a.lo, hi = a.hi;
    const hold = st.hold !== null ? st.hold : a.hold;
    if (hold !== null && hold !== undefined) hi = Math.max(hi, Math.min(a.last, hold));
    if (t < a.first || t > a.last) return [lo, hi];
    const step = Math.max(4, Math.floor((hi - lo) / 2));
    if (t + 2 > hi) hi = Math.min(a.last, hi + step * Math.ceil((t + 2 - hi) / step));
    if (t - 1 < lo) lo = Math.max(a.first, lo - step * Math.ceil((lo - t + 1) / step));
    return [lo, hi];
  }
  function axisLayout(a, lo, hi) {
    const x = v => v / a.factor, r0 = x(lo - 0.5), r1 = x(hi + 0.5), d = dtickOf(x(hi - lo));
    const out = { 'xaxis.range': [r0, r1], 'xaxis.dtick': d };
    if (a.origin === null) return Object.assign(out, { 'xaxis.tickmode': 'linear', 'xaxis.tick0': 0,
                                                       'xaxis.tickvals': null, 'xaxis.ticktext': null });
    const o = x(a.origin), vals = [], text = [];
    for (let k = Math.ceil((r0 - o) / d); k <= Math.floor((r1 - o) / d); k++) {
      vals.push(o + k * d);
      text.push(k ? (k > 0 ? '+' : '') + k * d : 'press');
    }
    return Object.assign(out, { 'xaxis.tickmode': 'array', 'xaxis.tickvals': vals, 'xaxis.ticktext': text });
  }
  // The x range a timeline view shows: the one the page last asked for until plotly has laid it out, else its own.
  function view(gd) {
    const xa = gd._fullLayout.xaxis, p = st.asked.get(gd);
    return p && p.from === String(xa.range) ? p.r : xa.range;
  }
  // The axis keeps the span it shows (a zoom of the user's included) while that holds the shown tick, so a click
  // or a step inside it only moves the line; a recorded tick outside it sets the span the kernel's
  // LampTimeline.move_cursor sets (tick_range), with the same tick labels counted from the press
  // (LampTimeline._set_range). `force`: set that span even so (Play's start, which holds the recording's end).
  // Each relayout holds the page for hundreds of milliseconds, so it never happens while the tick is in view.
  function widen(gd, a, force) {
    const cur = view(gd), t = st.shown;
    if (!cur || !M.timeline_fig || t === null || t < a.first || t > a.last) return;
    if (!force && cur[0] * a.factor <= t && t <= cur[1] * a.factor) return;  // LampTimeline.in_view
    const [lo, hi] = reach(a, t), r = [lo - 0.5, hi + 0.5].map(v => v / a.factor);
    if (r[0] === cur[0] && r[1] === cur[1]) return;
    for (const g of lines.keys()) {
      if (g._fullLayout && g._fullLayout.xaxis) st.asked.set(g, { r, from: String(g._fullLayout.xaxis.range) });
    }
    M.timeline_fig.set('_py2js_relayout', { relayout_data: axisLayout(a, lo, hi), layout_edit_id: -1 });
    M.timeline_fig.set('_py2js_relayout', null);
  }
  // only once plotly has drawn the figure's traces: a relayout during its first draw leaves it empty
  const drawnTimeline = () => Array.from(lines.keys()).find(gd => gd._fullLayout && gd._fullLayout.xaxis && gd.data
                                                                  && gd.data.length > 6);
  function cursor(force) {
    const c = model.get('axis');
    if (c && c.rows && st.shown !== null) {
      const gd = drawnTimeline();
      if (gd) widen(gd, c, force === true);
    }
    for (const [gd, line] of lines) {
      const xa = gd._fullLayout && gd._fullLayout.xaxis, ya = gd._fullLayout && gd._fullLayout.yaxis;
      if (!c || !c.rows || !xa || !ya || st.shown === null) { line.style.display = 'none'; continue; }
      // placed on the span the page asked for (the same as plotly's own once its relayout has drawn): a frame
      // in which plotly is still drawing the wider axis never loses the line
      const r = view(gd);
      if (!r) { line.style.display = 'none'; continue; }
      const [r0, r1] = r, x = xa._offset + (st.shown / c.factor - r0) / (r1 - r0) * xa._length;
      const inside = x >= xa._offset - 1 && x <= xa._offset + xa._length + 1;
      Object.assign(line.style, { display: inside ? 'block' : 'none', left: `${x - 1}px`, top: `${ya._offset}px`,
                                  height: `${ya._length}px` });
      line.dataset.tick = String(st.shown);
      // only once plotly has drawn the figure's traces: a restyle of trace 6 before that fails in the view
      if (!st.hidTrace && M.timeline_fig && gd.data && gd.data.length > 6) {
        st.hidTrace = true;
        M.timeline_fig.set('_py2js_restyle', { restyle_data: { visible: [false] }, restyle_traces: [6],
                                              trace_edit_id: -1, layout_edit_id: -1 });
        M.timeline_fig.set('_py2js_restyle', null);
      }
    }
  }
  // The model's tick is set only as it is sent: the kernel echoes each value it receives, and an echo of an
  // older tick arriving over a newer one set but not yet sent would move the page back.
  function save() { st.sent = performance.now(); model.set('tick', st.shown); model.save_changes(); }
  function report(now) {  // tell the kernel the tick; while playing, at most every 150 ms
    if (now || !st.playing || performance.now() - st.sent > 150) {
      clearTimeout(st.timer); st.timer = null; save();
    } else if (st.timer === null) {
      st.timer = setTimeout(() => { st.timer = null; save(); }, 150);
    }
  }
  function go(t) {  // true when the page drew tick t itself
    if (st.shown === null || !canShow(t)) return false;
    show(t);
    report(false);
    if (st.playing) st.origin = { t: performance.now(), tick: t };
    return true;
  }
  function loop() {
    if (!st.playing) return;
    const now = performance.now();
    const due = st.origin.tick + Math.floor((now - st.origin.t) / 1000 * M.speed.get('value') + 1e-6);
    if (due > st.shown) {  // one tick per frame at most: every tick is drawn
      const next = st.shown + 1;
      if (canShow(next)) {
        // a late frame is caught up one tick per frame; more than half a second behind, the page cannot draw
        // this many frames a second, so play slows down (the clock restarts at this tick) rather than skip
        // ticks, and the counter says so while the last second's rate is under the speed asked
        const speed = M.speed.get('value');
        if (due > next + Math.max(2, speed / 2)) st.origin = { t: now, tick: next };
        st.beats.push(now);
        while (st.beats.length > 1 && st.beats[0] < now - 1000) st.beats.shift();
        const span = (now - st.beats[0]) / 1000, rate = (st.beats.length - 1) / Math.max(span, 1e-3);
        st.slow = span > 0.9 && rate < 0.9 * speed ? Math.max(1, Math.round(rate)) : null;
        show(next); report(false);
      } else if (!st.waiting) { st.waiting = true; report(true); model.send({ advance: next }); }
    }
    requestAnimationFrame(loop);
  }
  function intercept(m, fn) {
    if (!m || m.__scvScrub) return;
    m.__scvScrub = true;
    const send = m.send.bind(m);
    m.send = (content, ...rest) => (content && content.event === 'click' && fn()) ? undefined : send(content, ...rest);
  }
  function hookTimeline() {
    const m = M.timeline_fig;
    if (!m || !m.views) return;
    for (const p of Object.values(m.views)) {
      Promise.resolve(p).then(v => {
        const gd = plotOf(v);
        if (!gd || gd.__scvScrub || typeof gd.on !== 'function') return;
        gd.__scvScrub = true;
        const line = document.createElement('div');
        line.className = 'scv-cursor';
        Object.assign(line.style, { position: 'absolute', width: '2px', background: '#ffffff', pointerEvents: 'none',
                                    display: 'none', zIndex: 5 });
        (gd.querySelector('.svg-container') || gd).appendChild(line);
        lines.set(gd, line);
        gd.on('plotly_afterplot', cursor);
        cursor();
        gd.on('plotly_click', ev => {
          const pt = ev && ev.points && ev.points[0];
          const a = model.get('axis');
          if (pt && pt.curveNumber === 0 && a && a.factor) go(Math.round(pt.x * a.factor));
        });
      });
    }
  }
  // three.js uploads a vertex array only when its version grows past the one last uploaded: a version set back
  // (pythreejs assigns whatever count the kernel sends) would leave the next writes on screen unseen, so a
  // lower count counts as one more, and is noted for the browser tests (window.__scvVersionDrops)
  function monotonic(obj) {
    let v = obj.version;
    Object.defineProperty(obj, 'version', { configurable: true, get: () => v, set: x => {
      if (x < v) { window.__scvVersionDrops = (window.__scvVersionDrops || 0) + 1; v += 1; } else v = x;
    } });
  }
  async function resolve() {
    for (const name of REFS) {
      const id = ref(model.get(name));
      M[name] = id ? await wm.get_model(id) : null;
    }
    const list = [];
    for (const s of model.get('attrs') || []) {
      const m = await wm.get_model(ref(s));
      if (m.initPromise) await m.initPromise;
      if (!m.__scvScrub) { m.__scvScrub = true; m.on('change:array', () => { st.foreign = true; }); monotonic(m.obj); }
      list.push(m);
    }
    attrs = list;
    const ents = [];
    for (const s of model.get('ent_attrs') || []) {
      const m = await wm.get_model(ref(s));
      if (m.initPromise) await m.initPromise;
      if (!m.__scvScrub) {
        m.__scvScrub = true; m.on('change:array', () => { st.entForeign = true; }); monotonic(m.obj);
      }
      ents.push(m);
    }
    entAttrs = ents;
    st.entForeign = true;
    intercept(M.step, () => go(st.shown + 1));
    intercept(M.step_rt, () => go(st.shown + 2));
    intercept(M.back, () => go(st.shown - 1));
    if (M.play && !M.play.__scvScrub) {
      M.play.__scvScrub = true;
      M.play.on('change:playing', () => {
        st.playing = !!M.play.get('playing');
        st.slow = null; st.beats = [];
        if (st.playing) {
          // the axis is laid out once, at the start, out to the recording's end (LampTimeline.hold, which the
          // kernel applies as it hears of Play): no relayout in the middle of playing
          const a = model.get('axis');
          if (a && a.rows && a.last !== undefined) { st.hold = a.last; cursor(true); }
          st.origin = { t: performance.now(), tick: st.shown }; requestAnimationFrame(loop);
        } else {
          report(true);
          if (D && st.shown !== null && canShow(st.shown)) eventsTitle(st.shown, st.shown - D.meta.first);
          if (st.heat) heat(st.heat.t, st.heat.k);
          if (D && M.counter && st.shown !== null) M.counter.set('value', counter(st.shown));
          if (D && st.shown !== null && canShow(st.shown)) slider(st.shown, true);
        }
      });
      M.speed.on('change:value', () => { st.origin = { t: performance.now(), tick: st.shown }; });
    }
    hookTimeline();
    if (!model.get('client')) { model.set('client', true); model.save_changes(); }
  }
  const poll = setInterval(hookTimeline, 500);
  model.on('change:attrs', resolve);
  model.on('change:ent_attrs', resolve);
  model.on('change:meta', () => {
    if (st.waiting) { st.waiting = false; st.origin = { t: performance.now(), tick: model.get('tick') }; }
  });
  model.on('change:tick', () => {  // the kernel moved the tick (a key, a seek in code, new rows)
    const t = model.get('tick');
    if (t === st.shown) return;
    if (st.waiting && st.playing) { st.waiting = false; st.origin = { t: performance.now(), tick: t }; }
    if (canShow(t)) show(t); else { st.shown = t; cursor(); heatDone(null); }
  });
  model.on('change:meta', () => { cursor(); heatDone(null); });
  model.on('change:axis', () => {
    const a = model.get('axis');
    if (!st.playing || (a && a.hold !== null && a.hold !== undefined)) st.hold = null;  // the kernel's hold from now
    cursor();
  });
  resolve();
  return () => clearInterval(poll);
}

function render({ el }) { el.style.display = 'none'; }

export default { initialize, render };
""".replace("%REFS%", repr(list(_REFS)))

    tick = T.Int(0).tag(sync=True)
    client = T.Bool(False).tag(sync=True)
    meta = T.Dict().tag(sync=True)
    axis = T.Dict().tag(sync=True)
    colors = T.Bytes(b"").tag(sync=True)
    delta_index = T.Bytes(b"").tag(sync=True)
    delta_old = T.Bytes(b"").tag(sync=True)
    delta_new = T.Bytes(b"").tag(sync=True)
    delta_start = T.Bytes(b"").tag(sync=True)
    attrs = T.List(T.Instance(W.Widget)).tag(sync=True, **W.widget_serialization)
    # the entities of each row: (first record, number of records) per row, and the records (entities.entity_records)
    ent_index = T.Bytes(b"").tag(sync=True)
    ent_data = T.Bytes(b"").tag(sync=True)
    ent_attrs = T.List(T.Instance(W.Widget)).tag(sync=True, **W.widget_serialization)
    renderer = _ref()
    counter = _ref()
    back = _ref()
    heat_fig = _ref()
    heat_slider = _ref()
    timeline_fig = _ref()
    play = _ref()
    speed = _ref()
    step = _ref()
    step_rt = _ref()
    events_title = _ref()

    def __init__(self, **kw):
        super().__init__(**kw)
        self._key = None
        self._final = 0  # rows from the run's first that were complete when encoded (reused next time)
        self._base: np.ndarray | None = None
        self._deltas: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._payloads: list[dict] = []
        self._index: list[int] = []
        self._advance = []
        self.on_msg(self._on_msg)

    def on_advance(self, handler) -> None:
        """handler(tick): the page played past the recording and asks the kernel to simulate to tick."""
        self._advance.append(handler)

    def _on_msg(self, widget, content, buffers) -> None:
        if isinstance(content, dict) and isinstance(content.get("advance"), int):
            for fn in self._advance:
                fn(content["advance"])

    def row_colors(self, k: int) -> np.ndarray:
        """The canvas colours of the run's k-th row, decoded from the deltas as the page does it."""
        full = self._base.copy()
        for idx, _old, new in self._deltas[:k]:
            full[idx] = new
        return full

    def load(self, session, canvas, heatmap, timeline) -> None:
        """Encode the run of recorded rows drawn with the canvas's current geometry (the one holding the
        shown tick); rows already encoded and complete then are reused."""
        frame = canvas.frame
        rec = session.rec
        lid = next((i for i, lay in enumerate(rec.layouts) if frame is not None and lay is frame.layout), None)
        if lid is None or canvas._geom is None or frame.tick is None or not 0 <= frame.tick - rec.start < rec.n:
            self._key = None
            self.meta = {}
            return
        a, b = _run(rec.layout_of[: rec.n], frame.tick - rec.start)
        caps = [buf.cap for buf in canvas._buffers.values()]
        key = (id(rec), lid, id(canvas._geom), tuple(caps), heatmap.layer.value, a)
        keep = min(self._final, b - a + 1) if key == self._key else 0
        self._key = key
        others = heatmap._markers(rec.frame(rec.start + a))
        if keep == 0:
            first = rec.frame(rec.start + a)
            self._base = canvas_colors(canvas, first)
            self._deltas, self._payloads, self._index = [], [heatmap.payload(first, others)], [0]
            keep = 1
        else:
            del self._deltas[keep - 1 :]
            del self._index[keep:]
            del self._payloads[self._index[-1] + 1 :]
        prev = self.row_colors(keep - 1)
        for r in range(a + keep, b + 1):
            fr = rec.frame(rec.start + r)
            cols = canvas_colors(canvas, fr)
            idx = np.flatnonzero((cols != prev).any(1))
            self._deltas.append((idx, prev[idx], cols[idx]))
            prev = cols
            p = heatmap.payload(fr, others)
            if p != self._payloads[self._index[-1]]:
                self._payloads.append(p)
            self._index.append(len(self._payloads) - 1)
        self._final = min(b + 1, rec.n - 1) - a  # the last recorded row may still be rewritten
        ent_index, ent_data = self.entity_rows(rec, canvas, a, b)
        d = self._deltas
        start = np.cumsum([len(i) for i, _, _ in d], dtype=np.uint32)
        with self.hold_sync():
            self.colors = self._base.tobytes()
            self.delta_index = (np.concatenate([i for i, _, _ in d]).astype(np.uint32) if d
                                else np.zeros(0, np.uint32)).tobytes()
            self.delta_old = (np.concatenate([o for _, o, _ in d]) if d else np.zeros((0, 3), np.uint8)).tobytes()
            self.delta_new = (np.concatenate([n for _, _, n in d]) if d else np.zeros((0, 3), np.uint8)).tobytes()
            self.delta_start = start.tobytes()
            self.attrs = [buf.col_attr for buf in canvas._buffers.values()]
            self.ent_index, self.ent_data = ent_index.tobytes(), ent_data.tobytes()
            self.ent_attrs = [canvas.ent_pos_attr, canvas.ent_col_attr]
            self.meta = {"first": rec.start + a, "last": rec.start + b, "start": session.start, "end": session.end,
                         "presses": [int(p) for p in session.presses], "caps": caps,
                         "heat": {"y": heatmap.layer.value, "index": self._index, "payloads": self._payloads,
                                  "x0": int(heatmap.xs[0]), "z0": int(heatmap.zs[0]), "scale": DUST_SCALE,
                                  "numbers": bool(heatmap.numbers.value)},
                         "events": self.events_meta(session, rec.start + a, rec.start + b),
                         "ent": {"cap": canvas._ent_cap, "vertices": ENTITY_VERTICES,
                                 "template": _ENT_TEMPLATE.tolist(), "shade": ENTITY_SHADE.tolist(),
                                 "top": _ENT_TOP.astype(int).tolist()}}
            self.follow_timeline(timeline)

    def entity_rows(self, rec, canvas, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The entities of the run's rows a..b for the page: (first record, count) per row (uint32) and the
        records (float64, 12 a record, entities.entity_records); a row with the same records as the row before
        shares them. Makes room in the canvas's entity mesh for the most entities of any row. A row's records are
        kept for the next load while the row holds the same entities (a live step re-encodes only the new rows)."""
        carts, items = rec.carts[a : b + 1], rec.items[a : b + 1]
        balls = getattr(rec, "fireballs", None)
        if balls:  # fireballs are drawn among the items
            items = [i + f for i, f in zip(items, balls[a : b + 1])]
        canvas.reserve_entities(max(len(c) + len(i) for c, i in zip(carts, items)))
        ymax = canvas.layer.value
        key = (id(rec), a, tuple(canvas._offset.tolist()), ymax)
        if getattr(self, "_ent_key", None) != key:
            self._ent_key, self._ent_kept = key, []
        kept: list = self._ent_kept
        index = np.zeros((b - a + 1, 2), np.uint32)
        chunks: list[np.ndarray] = []
        prev, used, r = None, 0, None
        for k, (c, i) in enumerate(zip(carts, items)):
            same = (c, i) == prev
            if k < len(kept) and kept[k][0] is c and kept[k][1] is i:
                r = kept[k][2]
            else:
                r = r if same else entity_records(c, i, canvas._offset, ymax)
                del kept[k:]
                kept.append((c, i, r))
            if same:
                index[k] = index[k - 1]
                continue
            prev = (c, i)
            index[k] = (used, len(r))
            chunks.append(r)
            used += len(r)
        data = np.concatenate(chunks) if chunks else np.zeros((0, 12))
        return index, data.astype(np.float64)

    @staticmethod
    def events_meta(session, first: int, last: int) -> dict:
        """What the page needs to write the event log's header as it draws a tick: the number of changes at
        each tick first..last and the header's pieces (multimeter.events_title)."""
        n = Counter(int(c.event.tick) for c in session.causes())
        return {"counts": [n.get(t, 0) for t in range(first, last + 1)], "title": EVENTS_TITLE,
                "notes": EVENTS_NOTES, "max": MAX_EVENTS}

    @staticmethod
    def axis_meta(timeline) -> dict:
        """What the page needs to draw the timeline's tick line and widen the axis to hold it: the axis unit,
        the number of rows, the span before widening (`activity_range`), the recorded ticks, the press the
        labels count from and the tick the axis holds (`LampTimeline.hold`)."""
        if timeline.empty_reason() is not None:  # no tick line over an empty timeline
            return {"factor": timeline.factor, "rows": 0}
        (lo, hi), (first, last) = timeline.activity_range(), timeline.recorded_range()
        return {"factor": timeline.factor, "rows": len(timeline._rows), "lo": lo, "hi": hi, "first": first,
                "last": last, "origin": timeline.origin, "hold": timeline._hold}

    def follow_timeline(self, timeline) -> None:
        """Keep the page's timeline cursor and axis right after new rows, a new verdict, a unit change or a
        filter (sent only when it changed)."""
        if self.axis != (c := self.axis_meta(timeline)):
            self.axis = c
