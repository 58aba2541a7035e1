"""Contact Lens recording writer (format version 1, docs/recording-format.md), no dependencies.

Conventions are the format's own: z up, quaternions [w, x, y, z] body -> world, contact normal from
body b into body a, lambda = impulse per step (N*s), 3 numbers per contact (n, t1, t2).

    rec = Recorder.create("drop.rec.jsonl", dt=1/60, gravity=(0, 0, -9.81),
                          bodies=[plane("ground", (0, 0, 1), 0.0), sphere("ball", 0.1, 1.0)],
                          producer=("my-engine", "1.0"), solver={"name": "pgs", "erp": 0.2})
    rec.write_frame(frame=0, time=1/60, bodies=[...], contacts=[...], solver=solver_result(...), pre=[...])
    rec.close()

Every number is checked to be finite before anything is written (a NaN raises RecordingError naming
the field, and the frame is not written, so the file stays valid); doubles are written with repr(),
the shortest text that reads back bit-identically; one line per frame, flushed; an existing file is
never overwritten unless overwrite=True. numpy arrays and numpy scalars are accepted wherever a list
of numbers is (each element goes through float()). close() writes the closing line {"end":{"frames":N}}
(docs/recording-format.md "Closing line").

Live: when the environment variable CONTACT_LENS_LIVE is set (Contact Lens: Listen for a Live Engine shows
it), Recorder.create() also connects to the editor on this machine and sends it every line it writes; while
the editor has a break armed, write_frame() returns only when the editor lets that frame go (step,
continue). Without the variable nothing of this runs (docs/live-protocol.md).
"""
from __future__ import annotations

import json
import math
import os
import re
import select
import socket
import sys
import time
from typing import Any, Iterable, Mapping, Optional, Sequence

__all__ = [
    "RecordingError", "Recorder", "sphere", "box", "plane", "other_shape", "static_body",
    "body_state", "pre_state", "contact", "solver_result", "external_impulse",
]

FORMAT = "contact-lens-recording"
VERSION = 1
CONVENTIONS = {"up": "z", "quaternion": "wxyz", "normal": "b-to-a", "impulse": "per-step"}
STATUSES = ("converged", "max-iterations", "stalled", "failed")


class RecordingError(ValueError):
    """A value the format cannot hold (the message names the field), or a file that already exists."""


# ---------------------------------------------------------------------------------------------- numbers

def _num(x: Any, field: str) -> str:
    if isinstance(x, bool):
        raise RecordingError(f"{field}: is a boolean, expected a number")
    try:
        f = float(x)
    except (TypeError, ValueError):
        raise RecordingError(f"{field}: is {x!r}, expected a number") from None
    if not math.isfinite(f):
        raise RecordingError(f"{field}: is {f!r}, not a finite number (JSON has no NaN or Infinity)")
    return repr(f)  # shortest round-trip (Python >= 3.1); '1.0', '1e-05', '-0.0' are JSON numbers


def _int(x: Any, field: str, minimum: int = 0) -> str:
    if isinstance(x, bool) or not isinstance(x, int) and not (hasattr(x, "__index__")):
        raise RecordingError(f"{field}: is {x!r}, expected an integer")
    i = int(x.__index__())
    if i < minimum:
        raise RecordingError(f"{field}: is {i}, expected an integer >= {minimum}")
    return str(i)


def _vec(xs: Iterable[Any], field: str, n: Optional[int] = None) -> str:
    items = list(xs)
    if n is not None and len(items) != n:
        raise RecordingError(f"{field}: has {len(items)} numbers, expected {n}")
    return "[" + ",".join(_num(v, f"{field}[{i}]") for i, v in enumerate(items)) + "]"


def _str(s: Any, field: str) -> str:
    if not isinstance(s, str):
        raise RecordingError(f"{field}: is {s!r}, expected a string")
    return json.dumps(s, ensure_ascii=False)


def _free(value: Any, field: str) -> str:
    """Free-form JSON (header solver, energy): numbers checked like every other number."""
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_str(k, field)}:{_free(v, f'{field}.{k}')}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return _str(value, field)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_free(v, f"{field}[{i}]") for i, v in enumerate(value)) + "]"
    return _num(value, field)


# ---------------------------------------------------------------------------------------------- header parts

def sphere(name: str, radius: float, mass: float, inertia: Optional[Sequence[float]] = None) -> dict:
    """A dynamic solid sphere; inertia defaults to the solid sphere's 2/5 m r^2 (body frame)."""
    i = 0.4 * mass * radius * radius
    return {"name": name, "shape": {"sphere": {"radius": radius}}, "mass": mass,
            "inertia": list(inertia) if inertia is not None else [i, i, i], "static": False}


def box(name: str, half_extents: Sequence[float], mass: float, inertia: Optional[Sequence[float]] = None) -> dict:
    """A dynamic solid box; inertia defaults to m/3 (hy^2 + hz^2, ...) (body frame, principal axes)."""
    hx, hy, hz = (float(v) for v in half_extents)
    k = mass / 3.0
    default = [k * (hy * hy + hz * hz), k * (hx * hx + hz * hz), k * (hx * hx + hy * hy)]
    return {"name": name, "shape": {"box": {"halfExtents": [hx, hy, hz]}}, "mass": mass,
            "inertia": list(inertia) if inertia is not None else default, "static": False}


def plane(name: str, normal: Sequence[float], offset: float) -> dict:
    """The static half-space {x : n.x <= offset}, n a unit vector pointing out of the solid."""
    return {"name": name, "shape": {"plane": {"normal": list(normal), "offset": offset}}, "mass": None, "inertia": None, "static": True}


def other_shape(name: str, type_: str, mass: Optional[float], inertia: Optional[Sequence[float]] = None, **params: Any) -> dict:
    """A shape Contact Lens does not know (drawn as a marker; the reader warns)."""
    return {"name": name, "shape": {"other": {"type": type_, **params}}, "mass": mass,
            "inertia": list(inertia) if inertia is not None else None, "static": mass is None}


def static_body(name: str, shape: Mapping[str, Any]) -> dict:
    return {"name": name, "shape": dict(shape), "mass": None, "inertia": None, "static": True}


def _shape(s: Mapping[str, Any], field: str) -> str:
    if "sphere" in s:
        return '{"sphere":{"radius":' + _num(s["sphere"]["radius"], f"{field}.sphere.radius") + "}}"
    if "box" in s:
        return '{"box":{"halfExtents":' + _vec(s["box"]["halfExtents"], f"{field}.box.halfExtents", 3) + "}}"
    if "plane" in s:
        p = s["plane"]
        return ('{"plane":{"normal":' + _vec(p["normal"], f"{field}.plane.normal", 3)
                + ',"offset":' + _num(p["offset"], f"{field}.plane.offset") + "}}")
    return _free(dict(s), field)


def _body(b: Mapping[str, Any], field: str) -> str:
    mass = b.get("mass")
    static = mass is None
    if b.get("static", static) != static:
        raise RecordingError(f"{field}.static: must be true exactly when mass is None")
    out = "{" + '"name":' + _str(b["name"], f"{field}.name") + ',"shape":' + _shape(b["shape"], f"{field}.shape")
    if static:
        return out + ',"mass":null,"inertia":null,"static":true}'
    m = _num(mass, f"{field}.mass")
    if float(m) <= 0:
        raise RecordingError(f"{field}.mass: is {m}, must be > 0 (write None for a static body)")
    inertia = list(b["inertia"])
    if len(inertia) not in (3, 9):
        raise RecordingError(f"{field}.inertia: has {len(inertia)} numbers, expected 3 or 9")
    return out + ',"mass":' + m + ',"inertia":' + _vec(inertia, f"{field}.inertia") + ',"static":false}'


# ---------------------------------------------------------------------------------------------- frame parts

def body_state(x: Sequence[float], q: Sequence[float], v: Sequence[float], w: Sequence[float]) -> dict:
    """State after the step: centre of mass, [w, x, y, z] body -> world, velocity, world angular velocity."""
    return {"x": x, "q": q, "v": v, "w": w}


def pre_state(v: Sequence[float], w: Sequence[float], x: Optional[Sequence[float]] = None, q: Optional[Sequence[float]] = None) -> dict:
    """Velocities the contact problem was built from (after gravity, before the solve), optional pose."""
    d: dict = {"v": v, "w": w}
    if x is not None:
        d["x"] = x
    if q is not None:
        d["q"] = q
    return d


def contact(a: int, b: int, point: Sequence[float], normal: Sequence[float], t1: Sequence[float], t2: Sequence[float],
            depth: float, mu: float, e: float, feature: Optional[str] = None) -> dict:
    """normal from b into a (b = -1: the static world), t1 x t2 = normal, depth >= 0."""
    d = {"a": a, "b": b, "point": point, "normal": normal, "t1": t1, "t2": t2, "depth": depth, "mu": mu, "e": e}
    if feature is not None:
        d["feature"] = feature
    return d


def solver_result(name: str, status: str, lambda_: Sequence[float], iterations: Optional[int] = None,
                  residuals: Optional[Sequence[float]] = None, reason: Optional[str] = None) -> dict:
    """lambda_: 3 impulses (N*s) per contact, in contact order: (n, t1, t2)."""
    d: dict = {"name": name, "status": status, "lambda": lambda_}
    if iterations is not None:
        d["iterations"] = iterations
    if residuals is not None:
        d["residuals"] = residuals
    if reason is not None:
        d["reason"] = reason
    return d


def external_impulse(body: int, impulse: Sequence[float], angular: Optional[Sequence[float]] = None,
                     stage: str = "before-solve") -> dict:
    """Format 1.1: an impulse besides gravity and contacts (force * dt, N*s; angular in N*m*s), world frame.
    stage "before-solve" (in pre, like gravity) or "with-solve" (applied with the contact impulses)."""
    d: dict = {"body": body, "impulse": impulse, "stage": stage}
    if angular is not None:
        d["angular"] = angular
    return d


def _external(x: Mapping[str, Any], field: str, body_count: int) -> str:
    i = _int(x["body"], f"{field}.body")
    if int(i) >= body_count:
        raise RecordingError(f"{field}.body: is {i}, expected a body index 0...{body_count - 1}")
    stage = x.get("stage", "before-solve")
    if stage not in ("before-solve", "with-solve"):
        raise RecordingError(f"{field}.stage: is {stage!r}, expected \"before-solve\" or \"with-solve\"")
    out = '{"body":' + i + ',"impulse":' + _vec(x["impulse"], f"{field}.impulse", 3)
    if x.get("angular") is not None:
        out += ',"angular":' + _vec(x["angular"], f"{field}.angular", 3)
    return out + ',"stage":"' + stage + '"}'


def _state(s: Mapping[str, Any], field: str, pose_optional: bool) -> str:
    parts = []
    for key, n in (("x", 3), ("q", 4), ("v", 3), ("w", 3)):
        if key in s and s[key] is not None:
            parts.append(f'"{key}":' + _vec(s[key], f"{field}.{key}", n))
        elif not pose_optional or key in ("v", "w"):
            raise RecordingError(f"{field}.{key}: missing")
    return "{" + ",".join(parts) + "}"


def _contact(c: Mapping[str, Any], field: str, body_count: int) -> str:
    a = _int(c["a"], f"{field}.a")
    b = _int(c["b"], f"{field}.b", -1)
    if int(a) >= body_count or int(b) >= body_count:
        raise RecordingError(f"{field}: body index out of range (there are {body_count} bodies)")
    if a == b:
        raise RecordingError(f"{field}: a and b are the same body")
    out = '{"a":' + a + ',"b":' + b
    for key in ("point", "normal", "t1", "t2"):
        out += f',"{key}":' + _vec(c[key], f"{field}.{key}", 3)
    for key in ("depth", "mu", "e"):
        out += f',"{key}":' + _num(c[key], f"{field}.{key}")
    if c.get("feature") is not None:
        out += ',"feature":' + _str(c["feature"], f"{field}.feature")
    return out + "}"



# ---------------------------------------------------------------------------------------------- live sink

_TOKEN = re.compile(r"^[0-9a-f]{32}$")


class _LiveSink:
    """The editor's loopback socket (docs/live-protocol.md, version 1): lines sent as written, the editor's
    answer awaited after a frame while a break is armed."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock: Optional[socket.socket] = sock
        self._in = b""
        self._welcomed = False
        self._armed = False
        self._go = -1
        self._refused = ""

    @classmethod
    def from_environment(cls) -> "Optional[_LiveSink]":
        """None when CONTACT_LENS_LIVE is not set, or (one line on stderr) when the editor cannot be reached."""
        value = os.environ.get("CONTACT_LENS_LIVE")
        if not value:
            return None
        try:
            return cls._connect(value)
        except (OSError, ValueError) as e:
            print(f"contact-lens: live: cannot stream to the editor: {e}; writing the file only", file=sys.stderr)
            return None

    @classmethod
    def _connect(cls, value: str) -> "_LiveSink":
        where, sep, token = value.rpartition("?token=")
        if not sep or not _TOKEN.match(token):
            raise ValueError("CONTACT_LENS_LIVE: expected tcp://127.0.0.1:PORT?token=HEX (32 hexadecimal digits)")
        if where.startswith("tcp://"):
            host, _, port = where[6:].rpartition(":")
            if host not in ("127.0.0.1", "[::1]", "::1"):
                raise ValueError(f"CONTACT_LENS_LIVE: the host {host!r} is not the loopback address")
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.connect((host.strip("[]"), int(port)))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        elif where.startswith("unix://"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(where[7:])
        else:
            raise ValueError("CONTACT_LENS_LIVE must start with tcp:// or unix://")
        sink = cls(sock)
        sink.send('{"live":"hello","version":1,"token":"' + token + '"}\n')
        deadline = time.monotonic() + 5.0
        while sink._sock is not None and not sink._welcomed:
            left = deadline - time.monotonic()
            if left <= 0:
                sink.close()
                raise ValueError("the editor did not answer within 5 s")
            sink._read(left)
        if not sink._welcomed:
            raise ValueError(sink._refused or "the connection closed")
        return sink

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def send(self, line: str) -> None:
        if self._sock is None:
            return
        try:
            self._sock.sendall(line.encode("utf-8"))  # blocks while the socket buffer is full: back-pressure
        except OSError:
            self._gone("the connection broke")

    def frame_written(self, frame: int) -> None:
        if self._sock is None:
            return
        self._read(0)
        if not self._armed or self._sock is None:
            return
        self.send('{"live":"wait","frame":' + str(int(frame)) + "}\n")
        while self._sock is not None and self._armed and self._go < frame:
            self._read(None)

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            self._sock.close()
            self._sock = None

    def _read(self, timeout: Optional[float]) -> None:
        sock = self._sock
        if sock is None:
            return
        ready, _, _ = select.select([sock], [], [], timeout)
        if not ready:
            return
        try:
            data = sock.recv(4096)
        except OSError:
            data = b""
        if not data:
            return self._gone("the editor closed the connection")
        self._in += data
        if len(self._in) > 1 << 20:
            return self._gone("the editor sent a line longer than 1 MiB")
        while b"\n" in self._in:
            line, self._in = self._in.split(b"\n", 1)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if not isinstance(m, dict):
                continue
            kind = m.get("live")
            if kind == "welcome":
                self._welcomed = True
            elif kind == "refused":
                self._refused = f"the editor refused the connection: {m.get('reason', '')}"
                self.close()
                return
            elif kind == "arm":
                self._armed = True
            elif kind == "disarm":
                self._armed = False
            elif kind == "go" and isinstance(m.get("frame"), int):
                self._go = max(self._go, m["frame"])

    def _gone(self, why: str) -> None:
        if self._sock is None:
            return
        if self._welcomed:
            print(f"contact-lens: live: {why}; writing the file only", file=sys.stderr)
        self._sock.close()
        self._sock = None
        self._armed = False

# ---------------------------------------------------------------------------------------------- the writer

class Recorder:
    """Writes a recording line by line; use create() (or the context manager protocol)."""

    def __init__(self, path: str, fh: Any, body_count: int) -> None:
        self.path = path
        self._fh = fh
        self._bodies = body_count
        self._last_frame = -1
        self._last_time = -math.inf
        self.frames_written = 0
        self._initial_written = False
        self._live: Optional[_LiveSink] = None

    @classmethod
    def create(cls, path: str, *, dt: float, gravity: Sequence[float], bodies: Sequence[Mapping[str, Any]],
               producer: Sequence[str] = ("unknown",), solver: Optional[Mapping[str, Any]] = None,
               overwrite: bool = False) -> "Recorder":
        """Writes and flushes the header. Raises RecordingError if path exists and overwrite is False."""
        if not bodies:
            raise RecordingError("bodies: at least one body is required")
        line = (f'{{"format":"{FORMAT}","version":{VERSION},"producer":{{"name":' + _str(producer[0], "producer.name")
                + (',"version":' + _str(producer[1], "producer.version") if len(producer) > 1 else "") + "}"
                + ',"units":"SI","conventions":' + json.dumps(CONVENTIONS, separators=(",", ":"))
                + ',"dt":' + _num(dt, "dt") + ',"gravity":' + _vec(gravity, "gravity", 3)
                + ',"bodies":[' + ",".join(_body(b, f"bodies[{i}]") for i, b in enumerate(bodies)) + "]"
                + (',"solver":' + _free(dict(solver), "solver") if solver is not None else "") + "}\n")
        if float(dt) <= 0:
            raise RecordingError(f"dt: is {dt!r}, must be > 0")
        if solver is not None and not isinstance(solver.get("name"), str):
            raise RecordingError("solver.name: a string is required")
        try:
            fh = open(path, "w" if overwrite else "x", encoding="utf-8", newline="\n")
        except FileExistsError:
            raise RecordingError(f"{path}: already exists (pass overwrite=True to replace it)") from None
        rec = cls(path, fh, len(bodies))
        rec._live = _LiveSink.from_environment()
        rec._put(line)
        return rec

    @property
    def streaming(self) -> bool:
        """True while the lines also go to the editor (CONTACT_LENS_LIVE)."""
        return self._live is not None and self._live.connected

    def _put(self, line: str) -> None:
        self._fh.write(line)
        self._fh.flush()
        if self._live is not None:
            self._live.send(line)

    def write_initial(self, bodies: Sequence[Mapping[str, Any]], time: Optional[float] = None) -> None:
        """Format 1.1: the bodies' state before the first step (line 2), once, before the first frame, so the
        first step is diagnosed like any other. bodies: one body_state() per header body."""
        if self._fh is None:
            raise RecordingError(f"{self.path}: the recorder is closed")
        if self.frames_written or self._initial_written:
            raise RecordingError(f"{self.path}: initial: the initial state is written once, before the first frame")
        try:
            if len(bodies) != self._bodies:
                raise RecordingError(f"initial.bodies: has {len(bodies)} entries, the header has {self._bodies} bodies")
            line = ('{"initial":{' + ('"time":' + _num(time, "initial.time") + "," if time is not None else "") + '"bodies":['
                    + ",".join(_state(s, f"initial.bodies[{i}]", False) for i, s in enumerate(bodies)) + "]}}\n")
        except RecordingError as e:
            raise RecordingError(f"{self.path}: {e}") from None
        self._put(line)
        self._initial_written = True

    def write_frame(self, *, frame: int, time: float, bodies: Sequence[Mapping[str, Any]],
                    contacts: Sequence[Mapping[str, Any]], solver: Mapping[str, Any],
                    pre: Optional[Sequence[Mapping[str, Any]]] = None, A: Optional[Iterable[float]] = None,
                    b: Optional[Iterable[float]] = None, energy: Optional[Mapping[str, float]] = None,
                    external: Optional[Sequence[Mapping[str, Any]]] = None) -> None:
        """Validates the whole frame, then writes it as one line and flushes. Nothing is written on error.
        external (format 1.1): external_impulse() entries, one per body and stage."""
        where = f"frame {frame}"
        try:
            line = self._frame_line(frame, time, bodies, contacts, solver, pre, A, b, energy, external)
        except RecordingError as e:
            raise RecordingError(f"{self.path}: {where}: {e}") from None
        if self._fh is None:
            raise RecordingError(f"{self.path}: the recorder is closed")
        self._put(line)
        self._last_frame, self._last_time = int(frame), float(time)
        self.frames_written += 1
        if self._live is not None:
            self._live.frame_written(int(frame))  # returns when the editor lets the frame go, while a break is armed

    def _frame_line(self, frame, time, bodies, contacts, solver, pre, A, b, energy, external=None) -> str:
        fr = _int(frame, "frame")
        if int(fr) <= self._last_frame:
            raise RecordingError(f"frame: {fr} is not greater than the previous frame {self._last_frame}")
        t = _num(time, "time")
        if float(t) <= self._last_time:
            raise RecordingError(f"time: {t} is not greater than the previous frame's {self._last_time!r}")
        if len(bodies) != self._bodies:
            raise RecordingError(f"bodies: has {len(bodies)} entries, the header has {self._bodies} bodies")
        out = '{"frame":' + fr + ',"time":' + t + ',"bodies":['
        out += ",".join(_state(s, f"bodies[{i}]", False) for i, s in enumerate(bodies)) + "]"
        if pre is not None:
            if len(pre) != self._bodies:
                raise RecordingError(f"pre: has {len(pre)} entries, the header has {self._bodies} bodies")
            out += ',"pre":[' + ",".join(_state(s, f"pre[{i}]", True) for i, s in enumerate(pre)) + "]"
        out += ',"contacts":[' + ",".join(_contact(c, f"contacts[{k}]", self._bodies) for k, c in enumerate(contacts)) + "]"
        n = 3 * len(contacts)
        status = solver["status"]
        if status not in STATUSES:
            raise RecordingError(f"solver.status: is {status!r}, expected one of {', '.join(STATUSES)}")
        out += ',"solver":{"name":' + _str(solver["name"], "solver.name") + ',"status":"' + status + '"'
        if solver.get("reason") is not None:
            out += ',"reason":' + _str(solver["reason"], "solver.reason")
        if solver.get("iterations") is not None:
            out += ',"iterations":' + _int(solver["iterations"], "solver.iterations")
        if solver.get("residuals") is not None:
            out += ',"residuals":' + _vec(solver["residuals"], "solver.residuals")
        out += ',"lambda":' + _vec(solver["lambda"], "solver.lambda", n) + "}"
        if A is not None:
            out += ',"A":' + _vec(A, "A", n * n)
        if b is not None:
            out += ',"b":' + _vec(b, "b", n)
        if energy is not None:
            out += ',"energy":' + _free(dict(energy), "energy")
        if external is not None:
            out += ',"external":[' + ",".join(_external(x, f"external[{k}]", self._bodies) for k, x in enumerate(external)) + "]"
        return out + "}\n"

    def close(self) -> None:
        """Writes the closing line {"end":{"frames":N}} and closes the file (and the editor's connection)."""
        if self._fh is not None:
            self._put('{"end":{"frames":' + str(self.frames_written) + "}}\n")
            self._fh.close()
            self._fh = None
        if self._live is not None:
            self._live.close()
            self._live = None

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
