"""Explorer speed on the largest reference solutions (64 lamps): opening the explorer, one Step
(engine tick + canvas, heatmap and timeline updates), and the GIF export of the task's test.

Run: python benchmarks/bench_views.py [--steps N] [--in-process]
By default the measurements run inside a Jupyter kernel (ipykernel, started here), so widget
messages are really serialised and sent as they would be in JupyterLab. Figures are printed,
never asserted by the test suite."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap

TASKS = ["A_simultaneous_lights_L5", "B_branch_reach_L5", "C_sequential_activation_L5",
         "D_equal_delay_distribution_L5", "E_pulse_shaping_L5"]

CODE = textwrap.dedent("""
    import json, statistics, time
    t0 = time.perf_counter()
    from scicraft_viz.views import Explorer
    from scicraft_viz import tasks
    imported = time.perf_counter() - t0

    def bench(task_id, steps, first):
        t = time.perf_counter()
        ex = Explorer(task=task_id, build="solution")
        opened = time.perf_counter() - t
        ex.session.press()
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            ex.stepper.step_button.click()  # what the Step button does: engine tick + every view
            times.append(time.perf_counter() - t)
        scrub = []
        for k in range(steps):
            t = time.perf_counter()
            ex.session.seek(ex.session.start + k)  # replaying a recorded row: no engine
            scrub.append(time.perf_counter() - t)
        lay = ex.session.frame().layout
        ex.session.run_test()
        t = time.perf_counter()
        gif = ex.animation()  # the GIF export of the test's activity: 3D view + timeline, drawn offscreen
        gif_s = time.perf_counter() - t
        from PIL import Image
        import io
        frames = Image.open(io.BytesIO(gif)).n_frames
        return dict(task=task_id, first=first, opened=opened, step_median=statistics.median(times),
                    gif_s=gif_s, gif_frames=frames, gif_kb=len(gif) / 1024,
                    step_max=max(times), scrub_median=statistics.median(scrub), blocks=len(lay),
                    lamps=len(ex.session.trace.lamp_positions), vertices=sum(ex.canvas.vertex_count().values()))

    out = [dict(imported=imported)]
    for i, tid in enumerate(TASK_IDS):
        out.append(bench(tid, STEPS, i == 0))
    print("RESULT" + json.dumps(out))
""")


def run_in_kernel(code: str) -> list:
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        lines = []

        def hook(msg):
            if msg["msg_type"] == "stream":
                lines.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                lines.append("\n".join(msg["content"]["traceback"]))

        reply = kc.execute_interactive(code, output_hook=hook, timeout=600)
        text = "".join(lines)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(text)
        return json.loads(text.split("RESULT", 1)[1])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40, help="Step clicks per task (after one press)")
    ap.add_argument("--in-process", action="store_true", help="measure in this process (no widget messages)")
    args = ap.parse_args()
    code = f"TASK_IDS = {TASKS!r}\nSTEPS = {args.steps}\n" + CODE
    if args.in_process:
        ns: dict = {}
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(code, ns)
        results = json.loads(buf.getvalue().split("RESULT", 1)[1])
        where = "in this process"
    else:
        results = run_in_kernel(code)
        where = "inside an ipykernel"
    print(f"measured {where}; imports took {results[0]['imported']:.2f} s")
    print(f"{'task':34} {'blocks':>6} {'lamps':>5} {'verts':>6} {'open s':>7} {'step ms':>8} {'max ms':>7} "
          f"{'scrub ms':>8}")
    for r in results[1:]:
        note = " (first in kernel: incl. engine JIT load)" if r["first"] else ""
        print(f"{r['task']:34} {r['blocks']:6d} {r['lamps']:5d} {r['vertices']:6d} {r['opened']:7.2f} "
              f"{1000 * r['step_median']:8.1f} {1000 * r['step_max']:7.1f} {1000 * r['scrub_median']:8.1f}{note}")
    print(f"{'task':34} {'GIF frames':>10} {'GIF s':>6} {'ms/frame':>8} {'KB':>6}")
    for r in results[1:]:
        print(f"{r['task']:34} {r['gif_frames']:10d} {r['gif_s']:6.2f} {1000 * r['gif_s'] / r['gif_frames']:8.1f} "
              f"{r['gif_kb']:6.0f}")
    worst_step = max(r["step_median"] for r in results[1:])
    warm_open = max(r["opened"] for r in results[1:] if not r["first"])
    print(f"worst median step+update: {1000 * worst_step:.1f} ms (target < 100 ms); "
          f"worst warm open: {warm_open:.2f} s, first open: {results[1]['opened']:.2f} s (target < 2 s)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
