//! Writes Contact Lens recordings (format version 1, `docs/recording-format.md`), without dependencies.
//!
//! Conventions are the format's own: z up, quaternions `[w, x, y, z]` body → world, contact normal from
//! body b into body a, λ = impulse per step (N·s), 3 numbers per contact (n, t1, t2).
//!
//! Every number is checked before anything is written: a NaN or infinity gives a [`RecordingError`] whose
//! message names the field (`frame 7: contacts[0].normal[2]: is NaN, …`) and nothing of that frame reaches
//! the file, so the recording stays valid. Doubles are written with `{:?}`, Rust's shortest round-trip
//! representation (`1.0`, `1e-7`, `-0.0` are all JSON numbers). One line per frame, flushed. An existing
//! file is never overwritten unless `overwrite` is true. [`Recorder::close`] (or dropping the recorder)
//! writes the closing line `{"end":{"frames":N}}` (`docs/recording-format.md` "Closing line").
//!
//! Live: when the environment variable `CONTACT_LENS_LIVE` is set (Contact Lens: Listen for a Live Engine
//! shows it), [`Recorder::create`] also connects to the editor on this machine and sends it every line it
//! writes; while the editor has a break armed, `write_frame` returns only when the editor lets that frame go
//! (step, continue). Without the variable nothing of this runs (`docs/live-protocol.md`).

use std::fmt::{self, Write as _};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub type Vec3 = [f64; 3];
/// `[w, x, y, z]`, body → world.
pub type Quat = [f64; 4];

/// A value the format cannot hold (the message names the field), or a file that cannot be written.
#[derive(Debug)]
pub struct RecordingError(pub String);

impl fmt::Display for RecordingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RecordingError {}

type Result<T> = std::result::Result<T, RecordingError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(RecordingError(msg.into()))
}

/// A body of the header.
#[derive(Clone, Debug)]
pub struct Body {
    pub name: String,
    pub shape: Shape,
    /// kg; `None` for a static body.
    pub mass: Option<f64>,
    /// Body frame: 3 principal moments or 9 numbers row-major; empty for static bodies.
    pub inertia: Vec<f64>,
}

#[derive(Clone, Debug)]
pub enum Shape {
    Sphere {
        radius: f64,
    },
    Box {
        half_extents: Vec3,
    },
    /// The static half-space {x : n·x ≤ offset}, n a unit vector pointing out of the solid.
    Plane {
        normal: Vec3,
        offset: f64,
    },
}

impl Body {
    /// A solid sphere, I = 2/5 m r².
    pub fn sphere(name: &str, radius: f64, mass: f64) -> Body {
        let i = 0.4 * mass * radius * radius;
        Body {
            name: name.into(),
            shape: Shape::Sphere { radius },
            mass: Some(mass),
            inertia: vec![i, i, i],
        }
    }
    /// A solid box, I = m/3 (hy² + hz², hx² + hz², hx² + hy²).
    pub fn cuboid(name: &str, h: Vec3, mass: f64) -> Body {
        let k = mass / 3.0;
        let inertia = vec![
            k * (h[1] * h[1] + h[2] * h[2]),
            k * (h[0] * h[0] + h[2] * h[2]),
            k * (h[0] * h[0] + h[1] * h[1]),
        ];
        Body {
            name: name.into(),
            shape: Shape::Box { half_extents: h },
            mass: Some(mass),
            inertia,
        }
    }
    pub fn plane(name: &str, normal: Vec3, offset: f64) -> Body {
        Body {
            name: name.into(),
            shape: Shape::Plane { normal, offset },
            mass: None,
            inertia: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Header {
    pub producer_name: String,
    /// Omitted when empty.
    pub producer_version: String,
    /// s, > 0.
    pub dt: f64,
    pub gravity: Vec3,
    pub bodies: Vec<Body>,
    /// The header `solver` is omitted when empty.
    pub solver_name: String,
    /// e.g. `("erp", 0.2)`, `("slop", 0.005)`.
    pub solver_params: Vec<(String, f64)>,
    /// `"iterative-fixed"`, `"iterative-tolerance"` or `"direct"` (header `solver.kind`); omitted when empty.
    pub solver_kind: String,
}

/// State after the step; `w` in the world frame.
#[derive(Clone, Copy, Debug)]
pub struct BodyState {
    pub x: Vec3,
    pub q: Quat,
    pub v: Vec3,
    pub w: Vec3,
}

impl Default for BodyState {
    fn default() -> Self {
        BodyState {
            x: [0.0; 3],
            q: [1.0, 0.0, 0.0, 0.0],
            v: [0.0; 3],
            w: [0.0; 3],
        }
    }
}

/// The velocities the contact problem was built from (after gravity, before the solve), optional pose.
#[derive(Clone, Copy, Debug, Default)]
pub struct PreState {
    pub v: Vec3,
    pub w: Vec3,
    pub pose: Option<(Vec3, Quat)>,
}

#[derive(Clone, Debug)]
pub struct Contact {
    pub a: usize,
    /// `None`: the static world. The normal points from b into a.
    pub b: Option<usize>,
    pub point: Vec3,
    pub normal: Vec3,
    /// t1 × t2 = normal.
    pub t1: Vec3,
    pub t2: Vec3,
    pub depth: f64,
    pub mu: f64,
    pub e: f64,
    pub feature: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Converged,
    MaxIterations,
    Stalled,
    Failed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Converged => "converged",
            Status::MaxIterations => "max-iterations",
            Status::Stalled => "stalled",
            Status::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug)]
pub struct SolverResult {
    pub name: String,
    pub status: Status,
    pub reason: Option<String>,
    pub iterations: Option<u32>,
    pub residuals: Vec<f64>,
    /// 3 per contact (n, t1, t2), N·s.
    pub lambda: Vec<f64>,
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub frame: u64,
    /// Simulated time at the end of the step.
    pub time: f64,
    pub bodies: Vec<BodyState>,
    /// Empty, or one per header body.
    pub pre: Vec<PreState>,
    pub contacts: Vec<Contact>,
    pub solver: SolverResult,
    /// Optional: (3C)² and 3C numbers (empty = omitted).
    pub a_matrix: Vec<f64>,
    pub b_vector: Vec<f64>,
    pub energy: Vec<(String, f64)>,
}

/// Format 1.1: when an external impulse acts (docs/recording-format.md "External impulses").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Applied in the velocity update before the contact solve, like gravity (`pre` includes it).
    BeforeSolve,
    /// Applied together with the contact impulses: v⁺ − v⁻ = M⁻¹(Jᵀλ + p).
    WithSolve,
}

/// Format 1.1: an impulse besides gravity and contacts (force × dt, N·s), world frame, about the centre of mass.
#[derive(Clone, Copy, Debug)]
pub struct ExternalImpulse {
    pub body: usize,
    pub impulse: Vec3,
    /// N·m·s, world frame; `None` = 0.
    pub angular: Option<Vec3>,
    pub stage: Stage,
}

// ------------------------------------------------------------------------------------------- JSON text

fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_num(out: &mut String, x: f64, field: &str) -> Result<()> {
    if !x.is_finite() {
        return err(format!(
            "{field}: is {x:?}, not a finite number (JSON has no NaN or Infinity)"
        ));
    }
    // `{:?}` is the shortest round-trip text and keeps a ".0" or an exponent (`1.0`, `1e-7`), unlike `{}`,
    // which writes 1e300 as 301 digits. Both are valid JSON.
    let _ = write!(out, "{x:?}");
    Ok(())
}

fn push_arr(out: &mut String, xs: &[f64], field: &str) -> Result<()> {
    out.push('[');
    for (i, &x) in xs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_num(out, x, &format!("{field}[{i}]"))?;
    }
    out.push(']');
    Ok(())
}

fn require_len(got: usize, want: usize, field: &str) -> Result<()> {
    if got != want {
        return err(format!("{field}: has {got} entries, expected {want}"));
    }
    Ok(())
}

fn header_line(h: &Header) -> Result<String> {
    if h.bodies.is_empty() {
        return err("bodies: at least one body is required");
    }
    let mut s =
        String::from(r#"{"format":"contact-lens-recording","version":1,"producer":{"name":"#);
    push_str(&mut s, &h.producer_name);
    if !h.producer_version.is_empty() {
        s.push_str(r#","version":"#);
        push_str(&mut s, &h.producer_version);
    }
    s.push_str(r#"},"units":"SI","conventions":{"up":"z","quaternion":"wxyz","normal":"b-to-a","impulse":"per-step"},"dt":"#);
    push_num(&mut s, h.dt, "dt")?;
    if h.dt <= 0.0 {
        return err("dt: must be > 0");
    }
    s.push_str(r#","gravity":"#);
    push_arr(&mut s, &h.gravity, "gravity")?;
    s.push_str(r#","bodies":["#);
    for (i, b) in h.bodies.iter().enumerate() {
        let field = format!("bodies[{i}]");
        if i > 0 {
            s.push(',');
        }
        s.push_str(r#"{"name":"#);
        push_str(&mut s, &b.name);
        s.push_str(r#","shape":"#);
        match &b.shape {
            Shape::Sphere { radius } => {
                s.push_str(r#"{"sphere":{"radius":"#);
                push_num(&mut s, *radius, &format!("{field}.shape.sphere.radius"))?;
                s.push_str("}}");
            }
            Shape::Box { half_extents } => {
                s.push_str(r#"{"box":{"halfExtents":"#);
                push_arr(
                    &mut s,
                    half_extents,
                    &format!("{field}.shape.box.halfExtents"),
                )?;
                s.push_str("}}");
            }
            Shape::Plane { normal, offset } => {
                s.push_str(r#"{"plane":{"normal":"#);
                push_arr(&mut s, normal, &format!("{field}.shape.plane.normal"))?;
                s.push_str(r#","offset":"#);
                push_num(&mut s, *offset, &format!("{field}.shape.plane.offset"))?;
                s.push_str("}}");
            }
        }
        match b.mass {
            None => s.push_str(r#","mass":null,"inertia":null,"static":true}"#),
            Some(m) => {
                s.push_str(r#","mass":"#);
                push_num(&mut s, m, &format!("{field}.mass"))?;
                if m <= 0.0 {
                    return err(format!(
                        "{field}.mass: must be > 0 (use None for a static body)"
                    ));
                }
                if b.inertia.len() != 3 && b.inertia.len() != 9 {
                    return err(format!(
                        "{field}.inertia: has {} numbers, expected 3 or 9",
                        b.inertia.len()
                    ));
                }
                s.push_str(r#","inertia":"#);
                push_arr(&mut s, &b.inertia, &format!("{field}.inertia"))?;
                s.push_str(r#","static":false}"#);
            }
        }
    }
    s.push(']');
    if !h.solver_name.is_empty() {
        s.push_str(r#","solver":{"name":"#);
        push_str(&mut s, &h.solver_name);
        if !h.solver_kind.is_empty() {
            s.push_str(r#","kind":"#);
            push_str(&mut s, &h.solver_kind);
        }
        for (k, v) in &h.solver_params {
            s.push(',');
            push_str(&mut s, k);
            s.push(':');
            push_num(&mut s, *v, &format!("solver.{k}"))?;
        }
        s.push('}');
    }
    s.push_str("}\n");
    Ok(s)
}

fn push_states(s: &mut String, states: &[BodyState], name: &str) -> Result<()> {
    s.push('[');
    for (i, b) in states.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(r#"{"x":"#);
        push_arr(s, &b.x, &format!("{name}[{i}].x"))?;
        s.push_str(r#","q":"#);
        push_arr(s, &b.q, &format!("{name}[{i}].q"))?;
        s.push_str(r#","v":"#);
        push_arr(s, &b.v, &format!("{name}[{i}].v"))?;
        s.push_str(r#","w":"#);
        push_arr(s, &b.w, &format!("{name}[{i}].w"))?;
        s.push('}');
    }
    s.push(']');
    Ok(())
}

// ------------------------------------------------------------------------------------------- live sink

enum Conn {
    Tcp(TcpStream),
    #[cfg(unix)]
    Unix(std::os::unix::net::UnixStream),
}

impl Conn {
    fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
        match self {
            Conn::Tcp(s) => s.write_all(b),
            #[cfg(unix)]
            Conn::Unix(s) => s.write_all(b),
        }
    }
    /// Reads with a timeout (`Some(ZERO)`: only what is there; `None`: waits).
    fn read_for(&mut self, buf: &mut [u8], timeout: Option<Duration>) -> io::Result<usize> {
        macro_rules! go {
            ($s:expr) => {{
                if timeout == Some(Duration::ZERO) {
                    $s.set_nonblocking(true)?;
                    let r = $s.read(buf);
                    $s.set_nonblocking(false)?;
                    r
                } else {
                    $s.set_read_timeout(timeout)?;
                    $s.read(buf)
                }
            }};
        }
        match self {
            Conn::Tcp(s) => go!(s),
            #[cfg(unix)]
            Conn::Unix(s) => go!(s),
        }
    }
    fn shutdown(&mut self) {
        let _ = match self {
            Conn::Tcp(s) => s.shutdown(std::net::Shutdown::Write),
            #[cfg(unix)]
            Conn::Unix(s) => s.shutdown(std::net::Shutdown::Write),
        };
    }
}

/// The editor's loopback socket (`docs/live-protocol.md`, version 1).
struct LiveSink {
    conn: Option<Conn>,
    input: Vec<u8>,
    welcomed: bool,
    armed: bool,
    go: i64,
    refused: String,
}

impl LiveSink {
    /// `None` when `CONTACT_LENS_LIVE` is not set, or (one line on stderr) when the editor cannot be reached.
    fn from_environment() -> Option<LiveSink> {
        let value = std::env::var("CONTACT_LENS_LIVE")
            .ok()
            .filter(|v| !v.is_empty())?;
        match LiveSink::connect(&value) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!(
                    "contact-lens: live: cannot stream to the editor: {e}; writing the file only"
                );
                None
            }
        }
    }

    fn connect(value: &str) -> std::result::Result<LiveSink, String> {
        let q = value
            .rfind("?token=")
            .ok_or("CONTACT_LENS_LIVE has no ?token=")?;
        let (where_, token) = (&value[..q], &value[q + 7..]);
        if token.len() != 32
            || !token
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err("the token is not 32 hexadecimal digits".into());
        }
        let conn = if let Some(hp) = where_.strip_prefix("tcp://") {
            let colon = hp.rfind(':').ok_or("no port in CONTACT_LENS_LIVE")?;
            let host = &hp[..colon];
            let port: u16 = hp[colon + 1..]
                .parse()
                .map_err(|_| "no valid port in CONTACT_LENS_LIVE")?;
            let ip = match host {
                "127.0.0.1" => std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
                "[::1]" | "::1" => std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
                _ => return Err(format!("the host {host} is not the loopback address")),
            };
            let s = TcpStream::connect((ip, port)).map_err(|e| format!("connect: {e}"))?;
            let _ = s.set_nodelay(true);
            Conn::Tcp(s)
        } else if let Some(path) = where_.strip_prefix("unix://") {
            #[cfg(unix)]
            {
                Conn::Unix(
                    std::os::unix::net::UnixStream::connect(path)
                        .map_err(|e| format!("connect: {e}"))?,
                )
            }
            #[cfg(not(unix))]
            {
                let _ = path;
                return Err("unix sockets are not available here".into());
            }
        } else {
            return Err("CONTACT_LENS_LIVE must start with tcp:// or unix://".into());
        };
        let mut sink = LiveSink {
            conn: Some(conn),
            input: Vec::new(),
            welcomed: false,
            armed: false,
            go: -1,
            refused: String::new(),
        };
        sink.send(&format!(
            "{{\"live\":\"hello\",\"version\":1,\"token\":\"{token}\"}}\n"
        ));
        let deadline = Instant::now() + Duration::from_secs(5);
        while sink.conn.is_some() && !sink.welcomed {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("the editor did not answer within 5 s".into());
            }
            sink.read(Some(left));
        }
        if sink.welcomed {
            Ok(sink)
        } else if sink.refused.is_empty() {
            Err("the connection closed".into())
        } else {
            Err(sink.refused)
        }
    }

    fn connected(&self) -> bool {
        self.conn.is_some()
    }

    /// Sends one line (blocking while the socket buffer is full: back-pressure).
    fn send(&mut self, line: &str) {
        if let Some(c) = self.conn.as_mut() {
            if c.write_all(line.as_bytes()).is_err() {
                self.gone("the connection broke");
            }
        }
    }

    fn frame_written(&mut self, frame: u64) {
        if self.conn.is_none() {
            return;
        }
        self.read(Some(Duration::ZERO));
        if !self.armed || self.conn.is_none() {
            return;
        }
        self.send(&format!("{{\"live\":\"wait\",\"frame\":{frame}}}\n"));
        while self.conn.is_some() && self.armed && self.go < frame as i64 {
            self.read(None);
        }
    }

    fn read(&mut self, timeout: Option<Duration>) {
        let mut buf = [0u8; 4096];
        let n = match self.conn.as_mut() {
            None => return,
            Some(c) => match c.read_for(&mut buf, timeout) {
                Ok(0) => return self.gone("the editor closed the connection"),
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) =>
                {
                    return
                }
                Err(_) => return self.gone("the connection broke"),
            },
        };
        self.input.extend_from_slice(&buf[..n]);
        if self.input.len() > 1 << 20 {
            return self.gone("the editor sent a line longer than 1 MiB");
        }
        while let Some(nl) = self.input.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.input.drain(..=nl).collect();
            self.handle(&String::from_utf8_lossy(&line[..line.len() - 1]));
        }
    }

    /// The editor's control lines are exactly the forms of docs/live-protocol.md.
    fn handle(&mut self, line: &str) {
        let field = |key: &str| -> Option<String> {
            let k = format!("\"{key}\":\"");
            let at = line.find(&k)? + k.len();
            let end = line[at..].find('"').map(|e| at + e).unwrap_or(line.len());
            Some(line[at..end].to_string())
        };
        match field("live").as_deref() {
            Some("welcome") => self.welcomed = true,
            Some("refused") => {
                self.refused = format!(
                    "the editor refused the connection: {}",
                    field("reason").unwrap_or_default()
                );
                self.conn = None;
            }
            Some("arm") => self.armed = true,
            Some("disarm") => self.armed = false,
            Some("go") => {
                if let Some(at) = line.find("\"frame\":") {
                    let digits: String = line[at + 8..]
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    if let Ok(k) = digits.parse::<i64>() {
                        self.go = self.go.max(k);
                    }
                }
            }
            _ => {}
        }
    }

    fn gone(&mut self, why: &str) {
        if self.conn.take().is_some() && self.welcomed {
            eprintln!("contact-lens: live: {why}; writing the file only");
        }
        self.armed = false;
    }

    fn close(&mut self) {
        if let Some(mut c) = self.conn.take() {
            c.shutdown();
        }
    }
}

// ------------------------------------------------------------------------------------------- the writer

/// Writes a recording line by line; the file is closed when the recorder is dropped.
pub struct Recorder {
    path: PathBuf,
    file: File,
    bodies: usize,
    last: Option<(u64, f64)>,
    initial_written: bool,
    frames_written: u64,
    closed: bool,
    live: Option<LiveSink>,
}

impl Recorder {
    /// Writes and flushes the header. Fails if `path` exists (unless `overwrite`) or a value is bad.
    pub fn create(path: impl AsRef<Path>, header: &Header, overwrite: bool) -> Result<Recorder> {
        let path = path.as_ref().to_path_buf();
        let line = header_line(header)?;
        let mut opts = OpenOptions::new();
        opts.write(true);
        if overwrite {
            opts.create(true).truncate(true);
        } else {
            opts.create_new(true); // atomic: fails if the file exists
        }
        let mut file = opts.open(&path).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                RecordingError(format!(
                    "{}: already exists (pass overwrite = true to replace it)",
                    path.display()
                ))
            } else {
                RecordingError(format!("{}: cannot be created: {e}", path.display()))
            }
        })?;
        file.write_all(line.as_bytes())
            .and_then(|_| file.flush())
            .map_err(|e| RecordingError(format!("{}: {e}", path.display())))?;
        let mut live = LiveSink::from_environment();
        if let Some(l) = live.as_mut() {
            l.send(&line);
        }
        Ok(Recorder {
            path,
            file,
            bodies: header.bodies.len(),
            last: None,
            initial_written: false,
            frames_written: 0,
            closed: false,
            live,
        })
    }

    /// True while the lines also go to the editor (`CONTACT_LENS_LIVE`).
    pub fn streaming(&self) -> bool {
        self.live.as_ref().is_some_and(|l| l.connected())
    }

    /// Writes the closing line `{"end":{"frames":N}}` and closes the editor's connection (dropping does the same).
    pub fn close(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let r = self.put(&format!(
            "{{\"end\":{{\"frames\":{}}}}}\n",
            self.frames_written
        ));
        if let Some(l) = self.live.as_mut() {
            l.close();
        }
        r
    }

    /// Format 1.1: the bodies' state before the first step (line 2), once, before the first frame, so the
    /// first step is diagnosed like any other. Nothing is written on error.
    pub fn write_initial(&mut self, bodies: &[BodyState]) -> Result<()> {
        if self.last.is_some() || self.initial_written {
            return err(format!(
                "{}: initial: the initial state is written once, before the first frame",
                self.path.display()
            ));
        }
        let mut s = String::from(r#"{"initial":{"bodies":"#);
        require_len(bodies.len(), self.bodies, "initial.bodies")
            .and_then(|_| push_states(&mut s, bodies, "initial.bodies"))
            .map_err(|e| RecordingError(format!("{}: {}", self.path.display(), e.0)))?;
        s.push_str("}}\n");
        self.put(&s)?;
        self.initial_written = true;
        Ok(())
    }

    /// Format 1.1: `write_frame` with the frame's external impulses (one per body and stage).
    pub fn write_frame_with_external(
        &mut self,
        f: &Frame,
        external: &[ExternalImpulse],
    ) -> Result<()> {
        // the frame's line ends with "}\n": the external impulses go before its closing brace
        let line = self
            .frame_line(f)
            .and_then(|l| {
                self.external_json(external)
                    .map(|x| format!("{}{x}}}\n", &l[..l.len() - 2]))
            })
            .map_err(|e| {
                RecordingError(format!(
                    "{}: frame {}: {}",
                    self.path.display(),
                    f.frame,
                    e.0
                ))
            })?;
        self.put(&line)?;
        self.last = Some((f.frame, f.time));
        self.frames_written += 1;
        if let Some(l) = self.live.as_mut() {
            l.frame_written(f.frame); // returns when the editor lets the frame go, while a break is armed
        }
        Ok(())
    }

    fn external_json(&self, external: &[ExternalImpulse]) -> Result<String> {
        if external.is_empty() {
            return Ok(String::new());
        }
        let mut s = String::from(r#","external":["#);
        for (k, x) in external.iter().enumerate() {
            let field = format!("external[{k}]");
            if x.body >= self.bodies {
                return err(format!(
                    "{field}.body: is {}, expected a body index below {}",
                    x.body, self.bodies
                ));
            }
            if k > 0 {
                s.push(',');
            }
            let _ = write!(s, r#"{{"body":{},"impulse":"#, x.body);
            push_arr(&mut s, &x.impulse, &format!("{field}.impulse"))?;
            if let Some(a) = &x.angular {
                s.push_str(r#","angular":"#);
                push_arr(&mut s, a, &format!("{field}.angular"))?;
            }
            s.push_str(match x.stage {
                Stage::BeforeSolve => r#","stage":"before-solve"}"#,
                Stage::WithSolve => r#","stage":"with-solve"}"#,
            });
        }
        s.push(']');
        Ok(s)
    }

    fn put(&mut self, line: &str) -> Result<()> {
        if self.closed && !line.starts_with("{\"end\"") {
            return err(format!("{}: the recorder is closed", self.path.display()));
        }
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| RecordingError(format!("{}: {e}", self.path.display())))?;
        if let Some(l) = self.live.as_mut() {
            l.send(line);
        }
        Ok(())
    }

    /// Validates the whole frame, then writes it as one line and flushes. Nothing is written on error.
    pub fn write_frame(&mut self, f: &Frame) -> Result<()> {
        let line = self.frame_line(f).map_err(|e| {
            RecordingError(format!(
                "{}: frame {}: {}",
                self.path.display(),
                f.frame,
                e.0
            ))
        })?;
        self.put(&line)?;
        self.last = Some((f.frame, f.time));
        self.frames_written += 1;
        if let Some(l) = self.live.as_mut() {
            l.frame_written(f.frame); // returns when the editor lets the frame go, while a break is armed
        }
        Ok(())
    }

    fn frame_line(&self, f: &Frame) -> Result<String> {
        let mut s = format!(r#"{{"frame":{},"time":"#, f.frame);
        push_num(&mut s, f.time, "time")?;
        if let Some((frame, time)) = self.last {
            if f.frame <= frame {
                return err(format!(
                    "frame: not greater than the previous frame {frame}"
                ));
            }
            if f.time <= time {
                return err(format!(
                    "time: not greater than the previous frame's {time:?}"
                ));
            }
        }
        require_len(f.bodies.len(), self.bodies, "bodies")?;
        s.push_str(r#","bodies":"#);
        push_states(&mut s, &f.bodies, "bodies")?;
        if !f.pre.is_empty() {
            require_len(f.pre.len(), self.bodies, "pre")?;
            s.push_str(r#","pre":["#);
            for (i, p) in f.pre.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(r#"{"v":"#);
                push_arr(&mut s, &p.v, &format!("pre[{i}].v"))?;
                s.push_str(r#","w":"#);
                push_arr(&mut s, &p.w, &format!("pre[{i}].w"))?;
                if let Some((x, q)) = &p.pose {
                    s.push_str(r#","x":"#);
                    push_arr(&mut s, x, &format!("pre[{i}].x"))?;
                    s.push_str(r#","q":"#);
                    push_arr(&mut s, q, &format!("pre[{i}].q"))?;
                }
                s.push('}');
            }
            s.push(']');
        }
        s.push_str(r#","contacts":["#);
        for (k, c) in f.contacts.iter().enumerate() {
            let field = format!("contacts[{k}]");
            if c.a >= self.bodies || c.b.map_or(false, |b| b >= self.bodies || b == c.a) {
                return err(format!(
                    "{field}: body indices a = {}, b = {:?} (need a, b < {}, a ≠ b)",
                    c.a, c.b, self.bodies
                ));
            }
            if k > 0 {
                s.push(',');
            }
            let b = c.b.map_or(-1i64, |b| b as i64);
            let _ = write!(s, r#"{{"a":{},"b":{b},"point":"#, c.a);
            push_arr(&mut s, &c.point, &format!("{field}.point"))?;
            s.push_str(r#","normal":"#);
            push_arr(&mut s, &c.normal, &format!("{field}.normal"))?;
            s.push_str(r#","t1":"#);
            push_arr(&mut s, &c.t1, &format!("{field}.t1"))?;
            s.push_str(r#","t2":"#);
            push_arr(&mut s, &c.t2, &format!("{field}.t2"))?;
            s.push_str(r#","depth":"#);
            push_num(&mut s, c.depth, &format!("{field}.depth"))?;
            s.push_str(r#","mu":"#);
            push_num(&mut s, c.mu, &format!("{field}.mu"))?;
            s.push_str(r#","e":"#);
            push_num(&mut s, c.e, &format!("{field}.e"))?;
            if let Some(feature) = &c.feature {
                s.push_str(r#","feature":"#);
                push_str(&mut s, feature);
            }
            s.push('}');
        }
        s.push(']');
        let r = &f.solver;
        let n = 3 * f.contacts.len();
        s.push_str(r#","solver":{"name":"#);
        push_str(&mut s, &r.name);
        let _ = write!(s, r#","status":"{}""#, r.status.as_str());
        if let Some(reason) = &r.reason {
            s.push_str(r#","reason":"#);
            push_str(&mut s, reason);
        }
        if let Some(it) = r.iterations {
            let _ = write!(s, r#","iterations":{it}"#);
        }
        if !r.residuals.is_empty() {
            s.push_str(r#","residuals":"#);
            push_arr(&mut s, &r.residuals, "solver.residuals")?;
        }
        require_len(r.lambda.len(), n, "solver.lambda")?;
        s.push_str(r#","lambda":"#);
        push_arr(&mut s, &r.lambda, "solver.lambda")?;
        s.push('}');
        if !f.a_matrix.is_empty() {
            require_len(f.a_matrix.len(), n * n, "A")?;
            s.push_str(r#","A":"#);
            push_arr(&mut s, &f.a_matrix, "A")?;
        }
        if !f.b_vector.is_empty() {
            require_len(f.b_vector.len(), n, "b")?;
            s.push_str(r#","b":"#);
            push_arr(&mut s, &f.b_vector, "b")?;
        }
        if !f.energy.is_empty() {
            s.push_str(r#","energy":{"#);
            for (i, (k, v)) in f.energy.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                push_str(&mut s, k);
                s.push(':');
                push_num(&mut s, *v, &format!("energy.{k}"))?;
            }
            s.push('}');
        }
        s.push_str("}\n");
        Ok(s)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_shortest_round_trip_json() {
        let mut s = String::new();
        for x in [1.0, 0.1, 1e-7, 1e300, -0.0, 1.0 / 3.0] {
            s.clear();
            push_num(&mut s, x, "x").unwrap();
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), x.to_bits(), "{s}");
        }
        assert!(push_num(&mut s, f64::NAN, "solver.lambda[3]")
            .unwrap_err()
            .0
            .starts_with("solver.lambda[3]: is NaN"));
    }
}
