"""The SciCrafter environment as a Model Context Protocol server (paper Section 3 and Appendix F).

    scicraft-viz serve-mcp --task A_simultaneous_lights_L1 --trajectory runs/    # stdio
    scicraft-viz serve-mcp --task A_simultaneous_lights_L1 --transport streamable-http --port 8765

One server is one episode on one task. The tools are the paper's five calls plus submit
(set-block, get-block-state, get-event-stream, scan-redstone-area, activate-button, submit); each
is a thin wrapper over `SciCraftEnv.call`, which checks the arguments, enforces the build region,
the palette and the trial budget, and writes the call to the trajectory file (one flushed line per
call, so a killed server loses nothing). A refused call comes back as a tool error (`isError`)
whose text is the environment's one-sentence reason; results carry raw state changes only, and
the evaluator's verdict appears only in submit's result (paper Appendix D).

Built on the SDK's low-level `Server`: its tool schemas are written by hand so that the arguments
reach the environment exactly as the client sent them. (`MCPServer` would validate and coerce them
with pydantic first: a refused call would then never reach the environment, so it would not be
recorded, and `from`, an argument of scan-redstone-area, is not a Python parameter name.)
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from scicraft_viz import __version__
from scicraft_viz.env.conditions import briefing, task_yaml
from scicraft_viz.env.environment import DEFAULT_MAX_EVENTS, MAX_SCAN_RADIUS, TOOLS, SciCraftEnv, surrogate_at
from scicraft_viz.tasks import Task

SERVER_NAME = "scicraft-viz"
TASK_URI = "scicraft://task"
BOOK_URI = "scicraft://knowledge-book"
SCIENTIST_PROMPT = "scientist"
# The longest legitimate argument is a block state of a few dozen characters. Anything far larger is
# refused before it reaches the environment, so one call cannot bloat the trajectory file.
MAX_ARGUMENT_BYTES = 8192
# One incoming message, on either transport: a line on stdio, a request body over HTTP (the SDK's own limit for
# HTTP, whose 413 this matches). A longer stdio line is skipped as it arrives and answered with an error.
MAX_MESSAGE_BYTES = 4 * 2**20
# HTTP sessions: one closed after this long with no request in flight, and at most this many open at once (a
# client that opens more gets 503 until one ends or expires). One server is one episode, so a few suffice.
SESSION_IDLE_TIMEOUT = 900.0
MAX_SESSIONS = 16
TRANSPORTS = ("stdio", "streamable-http")
HTTP_HOST = "127.0.0.1"
DEFAULT_PORT = 8765

_POSITION = {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3,
             "description": "[x, y, z], integers"}


def _schema(properties: dict | None = None, required: tuple[str, ...] = ()) -> dict:
    s: dict[str, Any] = {"type": "object", "properties": properties or {}, "additionalProperties": False}
    if required:
        s["required"] = list(required)
    return s


def _region(task: Task) -> str:
    r, (ax, ay, az) = task.radius, task.anchor
    return f"x {ax - r}..{ax + r}, y {ay - r}..{ay + r}, z {az - r}..{az + r}"


def tool_list(env: SciCraftEnv, names: tuple[str, ...] | None = None) -> list[types.Tool]:
    """The tools `names` (default: every call of the episode's protocol, `env.protocol_tools`) with
    this episode's region, palette, budget and book format written into their descriptions."""
    from scicraft_viz.env.book import FORMAT_NAMES, MAX_BOOK_CHARS, MAX_QUESTION_CHARS, MAX_REPORT_CHARS, TEMPLATES
    from scicraft_viz.env.environment import MAX_ANSWER_CHARS

    task = env.task
    palette = ", ".join(sorted(b.removeprefix("minecraft:") for b in task.allowed_blocks))
    read = types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    specs = [
        ("set-block", "Place a block",
         f"Place a block as /setblock would, at the current game tick, then let {env.ticks_per_action} game ticks "
         f"pass. `block` is a block state such as 'redstone_repeater[facing=west,delay=2]' ('minecraft:' optional); "
         f"'air' removes. Palette: {palette} (a wall torch counts as redstone_torch). Positions must lie in the build "
         f"region ({_region(task)}). A block without support pops off at its first neighbour update. Returns the "
         "state now at pos and the positions of blocks that popped off.",
         _schema({"pos": _POSITION, "block": {"type": "string", "description": "block state"}}, ("pos", "block")),
         types.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                               open_world_hint=False)),
        ("get-block-state", "Read one block",
         f"The canonical block state at pos (in the build region, {_region(task)}). Takes no game time.",
         _schema({"pos": _POSITION}, ("pos",)), read),
        ("get-event-stream", "Read recent events",
         "State changes logged since the previous get-event-stream call, oldest first: {tick, pos, block, kind, old, "
         "new} with kinds state (lit/powered 0/1), power (dust 0..15), shape, locked, delay, burnout, popped, placed, "
         f"removed. At most `limit` (and at most {env.max_events}); `remaining` says how many are still unread. "
         "Takes no game time.",
         _schema({"limit": {"type": "integer", "minimum": 1, "maximum": max(env.max_events, DEFAULT_MAX_EVENTS),
                            "description": "the most events to return"}}),
         types.ToolAnnotations(read_only_hint=True, idempotent_hint=False, open_world_hint=False)),
        ("scan-redstone-area", "List redstone components",
         "Redstone components (wire, repeater, torch, lamp, button, lever, redstone block) with their states, sorted "
         "by position. No arguments: the whole build region; or `center` and `radius` (0.."
         f"{MAX_SCAN_RADIUS}); or a box `from`..`to`. The box is clipped to the region. Takes no game time.",
         _schema({"center": _POSITION, "radius": {"type": "integer", "minimum": 0, "maximum": MAX_SCAN_RADIUS,
                             "description": "half the side of the box around center"},
                  "from": _POSITION, "to": _POSITION}), read),
        ("activate-button", "Run a verification trial",
         "Press the single stone button in the build region at the current tick and observe "
         f"{env.observe_ticks} game ticks. Uses one of the {env.budget} verification trials (refused, and no trial "
         "used, when there is no button, more than one, or it is still pressed). Returns every state change from "
         "the press to the end of the window - raw observations, never a verdict.",
         _schema(), types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                                          open_world_hint=False)),
        ("submit", "Submit the build",
         "End the episode: the evaluator presses the button on the build as it stands and checks the task's contract "
         "and constraints, counting the trials used. Every later call is refused.",
         _schema(), types.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                          open_world_hint=False)),
    ]
    assert tuple(s[0] for s in specs) == TOOLS
    change = types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                                   open_world_hint=False)
    fmt = FORMAT_NAMES[env.consolidation]
    specs += [
        ("read-knowledge-book", "Read the knowledge book",
         f"The knowledge book as it stands ({fmt} format), written by the {env.book_writer or 'nobody'}. Takes no "
         f"game time. The same text is the resource {BOOK_URI}.", _schema(), read),
        ("update-knowledge-book", "Rewrite the knowledge book",
         f"Replace the whole knowledge book with `book` (Markdown, at most {MAX_BOOK_CHARS} characters), in the "
         f"{fmt} format: {TEMPLATES[env.consolidation]} A book not in that format is refused and the old one kept.",
         _schema({"book": {"type": "string", "description": "the whole new book"}}, ("book",)), change),
        ("ask-scientist", "Hand a question to the scientist",
         "Open a session of the scientist sub-agent with one precise question about how the game behaves (at most "
         f"{MAX_QUESTION_CHARS} characters). Until the scientist calls end-experiment, the calls act on its own "
         "scratch world (the evaluator never sees it); its activate-button presses use this episode's trial budget.",
         _schema({"question": {"type": "string", "description": "what to find out"}}, ("question",)), change),
        ("archive-experiment-report", "Archive an experiment report",
         f"The scientist archives the report of an experiment (Markdown, at most {MAX_REPORT_CHARS} characters) "
         "with its eight sections in order: research question, hypothesis, experiment design, experiment steps, "
         "experiment record, results, analysis and summary, next steps.",
         _schema({"report": {"type": "string", "description": "the report"}}, ("report",)), change),
        ("end-experiment", "End the scientist's session",
         f"The scientist ends its session with `answer` for the engineer (at most {MAX_ANSWER_CHARS} characters); "
         "the engineer has the turn again.",
         _schema({"answer": {"type": "string", "description": "the answer to the engineer's question"}},
                 ("answer",)), change),
    ]
    from scicraft_viz.views.render import MAX_SIZE, MIN_SIZE, PRESETS

    size = {"type": "integer", "minimum": MIN_SIZE, "maximum": MAX_SIZE}
    vector = {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}
    specs.append(
        ("render-view", "Look at the build",
         "A picture (PNG) of the world as it stands, drawn as the explorer draws it: lit lamps yellow, dark ones "
         "brown, dust brighter red with more power, repeaters with their arrow and delay pips, buttons blue (orange "
         "when pressed), minecarts as blue-grey boxes and dropped items as small cubes of their colour; the "
         "floor's grid, x and z coordinates along the ground and a compass. `camera` is a preset ("
         f"{', '.join(PRESETS)}; default iso, from the south-east above), or give `position` and `look` (a "
         "direction) for a perspective view. `width`/`height` in pixels (default 640x480). `timeline`: also the "
         "lamps of your last trial over time, with the contract's windows. Takes no game time.",
         _schema({"camera": {"type": "string", "enum": list(PRESETS), "description": "a camera preset"},
                  "position": vector | {"description": "where the camera stands, [x, y, z]"},
                  "look": vector | {"description": "the direction the camera looks, [dx, dy, dz]"},
                  "width": size | {"description": "pixels"}, "height": size | {"description": "pixels"},
                  "timeline": {"type": "boolean", "description": "also the lamp timeline of the last trial"}}),
         read))
    wanted = env.protocol_tools if names is None else tuple(names)
    return [types.Tool(name=n, title=t, description=d, input_schema=s, annotations=a)
            for n, t, d, s, a in specs if n in wanted]


def instructions(env: SciCraftEnv) -> str:
    """What an agent is told when it connects: the briefing of the episode's condition."""
    return briefing(env.task, env.condition, budget=env.budget, ticks_per_action=env.ticks_per_action,
                    observe_ticks=env.observe_ticks, resource=TASK_URI, setting=env.setting,
                    consolidation=env.consolidation, book=env.book)


class EngineStart:
    """Starts the engine (`prepare`, then the environment's initial world) once, in a background thread
    when the client confirms the handshake or lists the tools, so that `initialize` is answered before
    the engine's start-up; a call that arrives first waits for it (or does it itself)."""

    def __init__(self, env: SciCraftEnv, prepare: Callable[[], None] | None = None):
        self.env, self.prepare = env, prepare
        self._lock = threading.Lock()
        self._done = False

    def run(self) -> None:
        with self._lock:
            if not self._done:
                if self.prepare is not None:
                    self.prepare()
                self.env.world  # noqa: B018  # builds the initial world
                self._done = True

    def in_background(self) -> None:
        if not self._done:
            threading.Thread(target=self._try, name="scicraft-engine-start").start()

    def _try(self) -> None:
        try:
            self.run()
        except Exception:  # noqa: BLE001  # the first call runs it again and reports what went wrong
            pass


class EnvTools:
    """The MCP surface of one `SciCraftEnv`: tool listing and calls, no logic of its own."""

    def __init__(self, env: SciCraftEnv, engine: EngineStart | None = None):
        self.env = env
        self.tools = tool_list(env)
        self.engine = engine or EngineStart(env)

    def call(self, name: str, arguments: dict | None, meta: dict | None = None) -> types.CallToolResult:
        self.engine.run()
        args = {} if arguments is None else arguments
        too_big = _oversized(args)
        bad_text = (meta or {}).get(INVALID_TEXT) if isinstance(meta, dict) else None
        if bad_text:
            result = {"ok": False, "error": f"{name}: {bad_text} holds a lone surrogate, which is not valid Unicode "
                                            "text", "tick": self.env.world.tick}
        elif too_big:
            result = {"ok": False, "error": f"{name}: {too_big}", "tick": self.env.world.tick}
        else:
            result = self.env.call(name, args)
        out = to_call_result(result)
        if name == "render-view" and result.get("ok"):
            out.content.extend(image_content(self.env.last_images))
        return out


def image_content(pictures) -> list[types.ImageContent]:
    """The pictures of a render-view call as MCP image content (base64 PNG), after the result's JSON text."""
    import base64

    return [types.ImageContent(type="image", data=base64.b64encode(r.png).decode("ascii"), mime_type="image/png")
            for r in pictures]


# A request whose JSON holds a lone surrogate (a legal escape, but not Unicode text) would be dropped by the SDK's
# parser, leaving the client waiting. Such a line is cleaned before the SDK reads it (each surrogate becomes U+FFFD)
# and a tool call is marked, so that it is answered with a tool error naming where the bad text was.
INVALID_TEXT = "scicraft/invalid_text"


def _replace_surrogates(obj: Any) -> Any:
    if isinstance(obj, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in obj)
    if isinstance(obj, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_replace_surrogates(v) for v in obj]
    return obj


def clean_line(line: str) -> str:
    """One incoming JSON-RPC line, with lone surrogates replaced and a tool call marked (see above)."""
    if "\\ud" not in line.lower():
        return line
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return line
    if not isinstance(obj, dict):
        return line
    params = obj.get("params")
    where = None
    if obj.get("method") == "tools/call" and isinstance(params, dict):
        where = surrogate_at(params.get("arguments"), "arguments") or surrogate_at(params.get("name"), "the name")
    if where is None and surrogate_at(obj) is None:
        return line
    obj = _replace_surrogates(obj)
    if where is not None:
        meta = obj["params"].get("_meta")
        obj["params"]["_meta"] = {**(meta if isinstance(meta, dict) else {}), INVALID_TEXT: where}
    return json.dumps(obj) + "\n"


# A message the server cannot read (longer than MAX_MESSAGE_BYTES, not JSON, not a JSON-RPC message) is not
# passed to the SDK, which would drop it silently and leave the client waiting. If it is a request whose id
# can be found, the SDK is handed this request in its place, with the same id, and answers it with a JSON-RPC
# error that says why; otherwise the line is reported on stderr. Either way the server reads the next line.
REFUSED_METHOD = "scicraft-viz/refused-message"


class _RefusedParams(types.RequestParams):
    code: int
    reason: str


_ID_VALUE = r'(-?\d{1,18}|"[^"\\]{0,200}")'
# the id among the scalar members a message starts with ({"jsonrpc":"2.0","id":7,"method":...}), or the
# last member of the outermost object (a nested "id" would be followed by a second closing brace)
_HEAD_ID = re.compile(r'^\s*\{(?:\s*"[A-Za-z_]{1,20}"\s*:\s*(?:"[^"\\]{0,200}"|-?\d{1,18}|null|true|false)\s*,)*'
                      r'\s*"id"\s*:\s*' + _ID_VALUE)
_TAIL_ID = re.compile(r'[,{]\s*"id"\s*:\s*' + _ID_VALUE + r'\s*\}\s*$')


def _request_id(head: str, tail: str = "", whole: bool = False) -> int | str | None:
    """The id of the request a line holds, if it can be told: from the parsed line (`whole`), else from
    its first and last bytes."""
    if whole:
        try:
            obj = json.loads(head)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            rid = obj.get("id")
            ok = isinstance(rid, (int, str)) and not isinstance(rid, bool) and isinstance(obj.get("method"), str)
            return rid if ok else None
    m = _HEAD_ID.match(head) or _TAIL_ID.search(tail)
    return json.loads(m.group(1)) if m else None


def _refusal(rid: int | str | None, code: int, reason: str) -> str | None:
    """The line that stands for a refused message (see REFUSED_METHOD), or None (then it is logged)."""
    if rid is None:
        log(f"a message was ignored (it is not a request with an id that could be answered): {reason}")
        return None
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": REFUSED_METHOD,
                       "params": {"code": code, "reason": reason}}) + "\n"


def read_message_lines(read: Callable[[int], bytes], limit: int | None = None) -> Any:
    """The stdio server's incoming lines as the SDK reads them: read in chunks of at most 64 KiB, so a line
    longer than `limit` (MAX_MESSAGE_BYTES) is skipped as it arrives, never held whole; lone surrogates
    cleaned (`clean_line`); a line that is not a JSON-RPC message replaced by a request the server refuses
    with an error naming why (or reported on stderr)."""
    from scicraft_viz.safeio import LongLine, bounded_lines, shown

    limit = MAX_MESSAGE_BYTES if limit is None else limit
    for item in bounded_lines(read, limit):
        if isinstance(item, LongLine):
            head, tail = (item.head.decode("utf-8", "replace"), item.tail.decode("utf-8", "replace"))
            reason = (f"the message is {item.size:,} bytes, more than the {limit:,} this server reads in one "
                      "message (the same limit as a request body over HTTP)")
            line = _refusal(_request_id(head, tail), types.INVALID_REQUEST, reason)
        else:
            text = item.decode("utf-8", "replace")
            if not text.strip():
                continue
            text = clean_line(text)
            try:
                types.jsonrpc_message_adapter.validate_json(text, by_name=False)
                line = text
            except Exception:  # noqa: BLE001  # pydantic's error: the line is not a message
                try:
                    json.loads(text)
                    code, why = types.INVALID_REQUEST, ("the message is not a JSON-RPC 2.0 message (an object with "
                                                        "\"jsonrpc\": \"2.0\" and a method, or a result or error)")
                except (ValueError, RecursionError) as e:
                    code, why = types.PARSE_ERROR, f"the message is not valid JSON ({shown(e, 200)})"
                rid = _request_id(text, whole=True)
                line = _refusal(rid if rid is not None else _request_id(text[:4096], text[-4096:]), code, why)
        if line is not None:
            yield line


class _MessageLines:
    """The SDK's stdin for `serve`: `read_message_lines` over a binary stream, run in a worker thread."""

    def __init__(self, raw):
        self._lines = read_message_lines(raw.read1)

    def __aiter__(self):
        return self._gen()

    async def _gen(self):
        import anyio

        while True:
            line = await anyio.to_thread.run_sync(next, self._lines, None)
            if line is None:
                return
            yield line


def _oversized(args: Any) -> str | None:
    try:
        size = len(json.dumps(args, default=str).encode("utf-8"))
    except (ValueError, TypeError, RecursionError):
        return None  # the environment names what cannot be written as JSON
    if size > MAX_ARGUMENT_BYTES:
        return (f"the arguments are {size} bytes of JSON, more than the {MAX_ARGUMENT_BYTES} this server accepts "
                "(positions are three integers, a block is a short block-state string)")
    return None


def to_call_result(result: dict) -> types.CallToolResult:
    """A result dict as an MCP tool result: the JSON as text and as structured content; a refused call
    is a tool error whose text is the reason alone, so that any client shows it as it is."""
    if result.get("ok"):
        from scicraft_viz.safeio import json_safe, json_text

        result = json_safe(result)  # standard JSON in both forms: no NaN or Infinity
        text = json_text(result, separators=(",", ":"))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=result)
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(result.get("error")))],
                                structured_content=result, is_error=True)


def build_server(env: SciCraftEnv, prepare: Callable[[], None] | None = None) -> Server:
    """An MCP server (the SDK's low-level `Server`) whose tools act on `env`. The engine starts once the
    client has confirmed the handshake or listed the tools (`prepare` first, if given), or at the first call."""
    engine = EngineStart(env, prepare)
    surface = EnvTools(env, engine)
    document = task_yaml(env.task, env.condition)

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        engine.in_background()  # a client of the 2026 protocol sends no `initialized`; it lists the tools first
        return types.ListToolsResult(tools=surface.tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        # Synchronous on purpose: calls run one at a time, in arrival order, which is the trajectory's order.
        return surface.call(params.name, params.arguments, params.meta)

    has_book = "read-knowledge-book" in env.protocol_tools
    uris = [TASK_URI] + ([BOOK_URI] if has_book else [])

    async def on_list_resources(ctx, params) -> types.ListResourcesResult:
        out = [types.Resource(name=env.task.id, title=env.task.name, uri=TASK_URI, mime_type="application/yaml",
                              description="The task document (statement, region, palette, contract, harness)")]
        if has_book:
            out.append(types.Resource(name="knowledge-book", title="Knowledge book", uri=BOOK_URI,
                                      mime_type="text/markdown",
                                      description="The knowledge book as it stands (read-knowledge-book returns "
                                                  "the same text; update-knowledge-book rewrites it)"))
        return types.ListResourcesResult(resources=out)

    async def on_read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri not in uris:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri[:100]!r}; the resources are "
                                                 f"{', '.join(uris)}")
        if uri == BOOK_URI:
            book = types.TextResourceContents(uri=BOOK_URI, mime_type="text/markdown", text=env.book)
            return types.ReadResourceResult(contents=[book])
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=TASK_URI, mime_type="application/yaml",
                                                                             text=document)])

    async def on_list_prompts(ctx, params) -> types.ListPromptsResult:
        if not env.has_scientist:
            return types.ListPromptsResult(prompts=[])
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=SCIENTIST_PROMPT, title="The scientist sub-agent",
            description="The system message for a scientist session: the question, the method, the report and "
                        "book formats, the book and the earlier reports as they stand now",
            arguments=[types.PromptArgument(name="question", description="the engineer's question", required=True)])])

    async def on_get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        from scicraft_viz.env.book import check_question
        from scicraft_viz.env.scientist import scientist_briefing

        if params.name != SCIENTIST_PROMPT or not env.has_scientist:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {str(params.name)[:60]!r}"
                                                 + (f"; the only one is {SCIENTIST_PROMPT}" if env.has_scientist else
                                                    f"; there is none under the condition {env.condition!r}"))
        question = (params.arguments or {}).get("question")
        bad = check_question(question)
        if bad:
            raise MCPError(types.INVALID_PARAMS, bad)
        text = scientist_briefing(env.task, question, book=env.book, reports=list(env.reports),
                                  consolidation=env.consolidation, trials_left=env.trials_left,
                                  ticks_per_action=env.ticks_per_action, observe_ticks=env.observe_ticks)
        return types.GetPromptResult(description="scientist session", messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])

    async def on_initialized(ctx, params) -> None:
        engine.in_background()

    async def on_refused(ctx, params: _RefusedParams) -> None:
        raise MCPError(params.code, params.reason)

    server = Server(SERVER_NAME, version=__version__, title="SciCrafter redstone environment",
                    instructions=instructions(env), on_list_tools=on_list_tools, on_call_tool=on_call_tool,
                    on_list_resources=on_list_resources, on_read_resource=on_read_resource,
                    on_list_prompts=on_list_prompts, on_get_prompt=on_get_prompt)
    server.add_notification_handler("notifications/initialized", types.NotificationParams, on_initialized)
    server.add_request_handler(REFUSED_METHOD, _RefusedParams, on_refused)
    return server


# ---------------------------------------------------------------------------------------- running
def trajectory_path(target: str | Path | None, task: Task, run_id: str) -> Path:
    """Where the trajectory goes: `target` itself, or a new file in it when it is a directory (or ends
    with a slash); by default a new file under ./runs/."""
    name = f"{task.id}__{run_id}.jsonl"
    if target is None:
        return Path("runs") / name
    p = Path(target)
    if p.is_dir() or str(target).endswith(("/", "\\")):
        return p / name
    return p


def task_with_budget(task: Task, budget: int | None) -> Task:
    """The task with another verification-trial budget. The budget lives in the task's harness, so the
    evaluator at submit and a replay (the changed task is embedded in the trajectory header) both use
    it; an environment's own `budget` argument would reach neither."""
    if budget is None or budget == task.trial_budget:
        return task
    import copy

    from scicraft_viz.tasks import from_dict

    doc = copy.deepcopy(task.doc)
    doc["harness"]["trial_budget"] = int(budget)
    return from_dict(doc, f"{task.id} with a budget of {budget} trials")


def open_env(task: Task, trajectory: str | Path | None = None, *, actor_kind: str = "model",
             actor_name: str | None = None, run_id: str | None = None, overwrite: bool = False,
             budget: int | None = None, condition: str | None = None, interface: str = "mcp",
             **env_kw) -> SciCraftEnv:
    """A recording environment for a server. Raises ValueError (TaskError) with a readable message;
    everything is checked before the trajectory file is created, and a file whose header cannot be
    written is removed again."""
    import uuid

    from scicraft_viz.env.conditions import check_condition, check_consolidation, check_setting
    from scicraft_viz.env.environment import MAX_BUDGET

    check_condition(condition)
    check_setting(env_kw.get("setting"))
    check_consolidation(env_kw.get("consolidation"))
    if budget is not None and not 1 <= budget <= MAX_BUDGET:
        raise ValueError(f"the trial budget must be 1..{MAX_BUDGET}, got {budget}")
    task = task_with_budget(task, budget)
    from scicraft_viz.safeio import shown

    run_id = run_id or uuid.uuid4().hex[:12]
    path = trajectory_path(trajectory, task, run_id)
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):  # a FIFO would block the first write, a device never fill
        raise ValueError(f"trajectory file {shown(path)} exists and is not a regular file")
    try:
        return SciCraftEnv.recording(task, path, actor_kind=actor_kind, actor_name=actor_name, run_id=run_id,
                                     overwrite=overwrite, session={"interface": interface}, condition=condition,
                                     **env_kw)
    except FileExistsError:
        raise ValueError(f"trajectory file {shown(path)} already exists (a run never overwrites another; pass "
                         "--overwrite or choose another path)") from None
    except OSError as e:
        raise ValueError(f"cannot write the trajectory file {shown(path)}: {e.strerror or e}") from None


def read_book_file(path: str | Path) -> str:
    """A knowledge book to start with: a regular UTF-8 file of at most the book's size, read through safeio
    (never blocks on a FIFO, never reads past the limit). Raises ValueError."""
    from scicraft_viz.env.book import MAX_BOOK_CHARS
    from scicraft_viz.safeio import UnsafeFile, read_regular, shown

    name = shown(str(path))
    try:
        data = read_regular(path, 4 * MAX_BOOK_CHARS, "the book file")
    except UnsafeFile as e:
        if e.reason in ("special", "directory"):
            raise ValueError(f"the book file {name} is not a regular file") from None
        if e.reason == "too_large":
            size = f"{e.size} bytes" if e.size is not None else "larger than that"
            raise ValueError(f"the book file {name} is {size}; a book holds at most {MAX_BOOK_CHARS} characters") \
                from None
        raise ValueError(f"cannot read the book file {name}: {e.detail or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"the book file {name} is not UTF-8 text (byte {e.start})") from None
    if len(text) > MAX_BOOK_CHARS:
        raise ValueError(f"the book file {name} holds {len(text)} characters; the limit is {MAX_BOOK_CHARS}")
    return text


def check_port(port: int) -> None:
    """Raise ValueError if the HTTP port cannot be bound, before a trajectory file is created for nothing."""
    import socket

    with socket.socket() as s:
        try:
            s.bind((HTTP_HOST, port))
        except OSError as e:
            raise ValueError(f"port {port} on {HTTP_HOST} cannot be used: {e.strerror or e}") from None


def serve(env: SciCraftEnv, transport: str = "stdio", port: int = DEFAULT_PORT,
          prepare: Callable[[], None] | None = None, *, session_idle_timeout: float = SESSION_IDLE_TIMEOUT,
          max_sessions: int = MAX_SESSIONS) -> None:
    """Serve `env` until the client goes away (stdio) or the process is stopped (HTTP); closes the
    trajectory file at the end. `prepare` runs before the engine starts (see `build_server`). Over HTTP, a
    session with no request for `session_idle_timeout` seconds is closed, and at most `max_sessions` are
    open at once."""
    import anyio

    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r}; choose {' or '.join(TRANSPORTS)}")
    server = build_server(env, prepare)
    try:
        if transport == "stdio":
            from mcp.server.stdio import stdio_server

            stdin = _MessageLines(sys.stdin.buffer)

            async def main() -> None:
                async with stdio_server(stdin=stdin) as (read, write):
                    await server.run(read, write, server.create_initialization_options())

            anyio.run(main)
        else:
            import uvicorn

            # Loopback only: the environment has no authentication, so it must not be reachable from other hosts.
            app = server.streamable_http_app(host=HTTP_HOST, max_request_body_size=MAX_MESSAGE_BYTES,
                                             session_idle_timeout=session_idle_timeout, max_sessions=max_sessions)
            config = uvicorn.Config(app, host=HTTP_HOST, port=port, log_level="warning")
            anyio.run(uvicorn.Server(config).serve)
    finally:
        env.close()


def log(message: str) -> None:
    """Messages for the person running the server go to stderr: on stdio, stdout is the protocol."""
    print(f"scicraft-viz serve-mcp: {message}", file=sys.stderr, flush=True)
