// contact_lens_recorder.hpp — writes Contact Lens recordings (format version 1, docs/recording-format.md).
// C++17, single header, no dependencies beyond the standard library (needs std::to_chars for double:
// GCC >= 11, Clang/libc++ >= 14, MSVC >= 19.24).
//
// Conventions are the format's own: z up, quaternions {w, x, y, z} body -> world, contact normal from body
// b into body a, lambda = impulse per step (N*s), 3 numbers per contact (n, t1, t2).
//
//   namespace cl = contact_lens;
//   cl::Header h; h.producerName = "my-engine"; h.dt = 1.0 / 60; h.gravity = {0, 0, -9.81};
//   h.bodies = {cl::Body::plane("ground", {0, 0, 1}, 0), cl::Body::sphere("ball", 0.1, 1.0)};
//   h.solverName = "pgs"; h.solverParams = {{"erp", 0.2}, {"slop", 0.005}};
//   cl::Recorder rec = cl::Recorder::create("run.rec.jsonl", h);   // throws if the file exists
//   cl::Frame f; ...; rec.writeFrame(f);                             // one line, flushed
//
// Every number is checked before anything is written: a NaN or infinity throws contact_lens::RecordingError
// whose message names the field ("frame 7: contacts[0].normal[2]: is nan, ...") and nothing of that frame
// reaches the file, so the recording stays valid. Doubles are written with std::to_chars (the shortest text
// that reads back bit-identically). An existing file is never overwritten unless overwrite = true. close()
// (and the destructor) write the closing line {"end":{"frames":N}} (docs/recording-format.md "Closing line").
//
// Live: when the environment variable CONTACT_LENS_LIVE is set (Contact Lens: Listen for a Live Engine shows
// it), create() also connects to the editor on this machine and sends it every line it writes; while the
// editor has a break armed, writeFrame() returns only when the editor lets that frame go (step, continue).
// Without the variable nothing of this runs (docs/live-protocol.md). POSIX sockets; on Windows the live sink
// is not available in this version (one line on stderr, the file is written as usual).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if !defined(_WIN32)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

namespace contact_lens {

using Vec3 = std::array<double, 3>;
using Quat = std::array<double, 4>;  // {w, x, y, z}, body -> world

/** A value the format cannot hold (the message names the field), or a file that cannot be written. */
class RecordingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Body {
  std::string name;
  std::string shapeJson;  // e.g. {"sphere":{"radius":0.1}} — built by the factories below
  bool isStatic = false;
  double mass = 0;              // kg, > 0 for dynamic bodies; ignored for static ones
  std::vector<double> inertia;  // body frame: 3 principal moments or 9 numbers row-major

  static Body sphere(std::string name, double radius, double mass);         // solid sphere, I = 2/5 m r^2
  static Body box(std::string name, const Vec3& halfExtents, double mass);  // solid box, I = m/3 (hy^2+hz^2, ...)
  /** The static half-space {x : n.x <= offset}, n a unit vector pointing out of the solid. */
  static Body plane(std::string name, const Vec3& normal, double offset);
};

struct Header {
  std::string producerName = "unknown";
  std::string producerVersion;  // omitted when empty
  double dt = 0;                // s, > 0
  Vec3 gravity{0, 0, -9.81};    // m/s^2, world frame
  std::vector<Body> bodies;
  std::string solverName;                                    // header "solver" omitted when empty
  std::vector<std::pair<std::string, double>> solverParams;  // e.g. {"erp", 0.2}, {"slop", 0.005}
  std::string
      solverKind;  // "iterative-fixed" | "iterative-tolerance" | "direct" (header solver.kind); omitted when empty
};

struct BodyState {
  Vec3 x{};
  Quat q{1, 0, 0, 0};
  Vec3 v{};
  Vec3 w{};
};  // after the step; w in world frame
struct PreState {
  Vec3 v{};
  Vec3 w{};
  bool hasPose = false;
  Vec3 x{};
  Quat q{1, 0, 0, 0};
};  // before the solve

struct Contact {
  int a = 0, b = -1;                                        // b = -1: the static world; normal points from b into a
  Vec3 point{}, normal{0, 0, 1}, t1{1, 0, 0}, t2{0, 1, 0};  // t1 x t2 = normal
  double depth = 0, mu = 0, e = 0;
  std::string feature;  // omitted when empty
};

struct SolverResult {
  std::string name;
  std::string status = "converged";  // converged | max-iterations | stalled | failed
  std::string reason;                // omitted when empty
  int iterations = -1;               // omitted when < 0
  std::vector<double> residuals;
  std::vector<double> lambda;  // 3 per contact (n, t1, t2), N*s
};

/** Format 1.1: an impulse besides gravity and contacts (force * dt, N*s), world frame, about the centre of mass. */
struct ExternalImpulse {
  int body = 0;
  Vec3 impulse{};
  bool hasAngular = false;
  Vec3 angular{};  // N*m*s, written when hasAngular
  std::string stage =
      "before-solve";  // "before-solve" (in pre, like gravity) | "with-solve" (applied with the contact impulses)
};

struct Frame {
  std::int64_t frame = 0;
  double time = 0;                // end of the step
  std::vector<BodyState> bodies;  // one per header body
  std::vector<PreState> pre;      // empty or one per header body
  std::vector<Contact> contacts;
  SolverResult solver;
  std::vector<double> A, b;  // optional: (3C)^2 and 3C numbers
  std::vector<std::pair<std::string, double>> energy;
  std::vector<ExternalImpulse> external;  // format 1.1, optional: omitted when empty
};

namespace detail {

inline void appendString(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

inline void appendNumber(std::string& out, double x, const std::string& field) {
  if (!std::isfinite(x))
    throw RecordingError(field + ": is " + (std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf")) +
                         ", not a finite number (JSON has no NaN or Infinity)");
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, x);  // shortest round-trip; "1", "1e-05", "-0" are JSON
  out.append(buf, r.ptr);
}

template <typename Seq>
void appendArray(std::string& out, const Seq& xs, const std::string& field) {
  out += '[';
  std::size_t i = 0;
  for (double x : xs) {
    if (i) out += ',';
    appendNumber(out, x, field + "[" + std::to_string(i) + "]");
    ++i;
  }
  out += ']';
}

inline void requireSize(std::size_t got, std::size_t want, const std::string& field) {
  if (got != want)
    throw RecordingError(field + ": has " + std::to_string(got) + " entries, expected " + std::to_string(want));
}

inline std::string number(double x, const std::string& field) {
  std::string s;
  appendNumber(s, x, field);
  return s;
}

/**
 * The live sink (docs/live-protocol.md, version 1): the editor's loopback socket, the one-time token, the
 * lines sent as written, and the editor's answer awaited after a frame while a break is armed.
 */
class LiveSink {
 public:
  /** Connects as CONTACT_LENS_LIVE says; nullptr when it is not set, or (one line on stderr) when the editor cannot be
   * reached. */
  static std::unique_ptr<LiveSink> fromEnvironment() {
    const char* value = std::getenv("CONTACT_LENS_LIVE");
    if (!value || !*value) return nullptr;
#if defined(_WIN32)
    std::fprintf(stderr, "contact-lens: live: not available on Windows in this version; writing the file only\n");
    return nullptr;
#else
    std::unique_ptr<LiveSink> sink(new LiveSink());
    std::string why = sink->connect(value);
    if (!why.empty()) {
      std::fprintf(stderr, "contact-lens: live: cannot stream to the editor: %s; writing the file only\n", why.c_str());
      return nullptr;
    }
    return sink;
#endif
  }

  LiveSink(const LiveSink&) = delete;
  LiveSink& operator=(const LiveSink&) = delete;
  ~LiveSink() { close(); }

  bool connected() const { return fd_ >= 0; }

  /** Sends one line (with its newline), blocking while the socket's buffer is full (back-pressure). */
  void send(const std::string& line) {
#if !defined(_WIN32)
    if (fd_ < 0) return;
    std::size_t done = 0;
    while (done < line.size()) {
#ifdef MSG_NOSIGNAL
      ssize_t n = ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
#else
      ssize_t n = ::send(fd_, line.data() + done, line.size() - done, 0);
#endif
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return gone("the connection broke");
      done += static_cast<std::size_t>(n);
    }
#else
    (void)line;
#endif
  }

  /** After frame `frame` was sent: reads what the editor said; while armed, waits until it lets the frame go. */
  void frameWritten(std::int64_t frame) {
#if !defined(_WIN32)
    if (fd_ < 0) return;
    read(0);
    if (!armed_ || fd_ < 0) return;
    send("{\"live\":\"wait\",\"frame\":" + std::to_string(frame) + "}\n");
    while (fd_ >= 0 && armed_ && go_ < frame) read(-1);
#else
    (void)frame;
#endif
  }

  void close() {
#if !defined(_WIN32)
    if (fd_ >= 0) {
      ::shutdown(fd_, SHUT_WR);
      ::close(fd_);
    }
#endif
    fd_ = -1;
  }

 private:
  LiveSink() = default;

#if !defined(_WIN32)
  /** Connects and waits for the welcome; returns why not ("" on success). */
  std::string connect(const std::string& value) {
    const std::size_t q = value.rfind("?token=");
    if (q == std::string::npos) return "CONTACT_LENS_LIVE has no ?token=";
    const std::string token = value.substr(q + 7), where = value.substr(0, q);
    if (token.size() != 32 || token.find_first_not_of("0123456789abcdef") != std::string::npos)
      return "the token is not 32 hexadecimal digits";
    if (where.rfind("tcp://", 0) == 0) {
      const std::string hp = where.substr(6);
      const std::size_t colon = hp.rfind(':');
      if (colon == std::string::npos) return "no port in CONTACT_LENS_LIVE";
      std::string host = hp.substr(0, colon);
      const int port = std::atoi(hp.c_str() + colon + 1);
      if (port <= 0 || port > 65535) return "no valid port in CONTACT_LENS_LIVE";
      if (host == "127.0.0.1") {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<std::uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
          return fail(std::string("connect: ") + std::strerror(errno));
      } else if (host == "[::1]" || host == "::1") {
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(static_cast<std::uint16_t>(port));
        a.sin6_addr = in6addr_loopback;
        fd_ = ::socket(AF_INET6, SOCK_STREAM, 0);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
          return fail(std::string("connect: ") + std::strerror(errno));
      } else {
        return "the host " + host + " is not the loopback address (the editor listens on this machine only)";
      }
      int one = 1;
      ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    } else if (where.rfind("unix://", 0) == 0) {
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      const std::string path = where.substr(7);
      if (path.size() >= sizeof a.sun_path) return "the unix socket path is too long";
      std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
      fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
      if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
        return fail(std::string("connect: ") + std::strerror(errno));
    } else {
      return "CONTACT_LENS_LIVE must start with tcp:// or unix://";
    }
#ifdef SO_NOSIGPIPE
    int on = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
    send("{\"live\":\"hello\",\"version\":1,\"token\":\"" + token + "\"}\n");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(5000);
    while (fd_ >= 0 && !welcomed_) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return fail("the editor did not answer within 5 s");
      read(static_cast<int>(left));
    }
    return welcomed_ ? std::string() : (refused_.empty() ? std::string("the connection closed") : refused_);
  }

  std::string fail(const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return why;
  }

  /** Reads what the editor sent (waits up to timeoutMs; -1: until something arrives) and acts on each line. */
  void read(int timeoutMs) {
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, timeoutMs);
    if (r < 0 && errno == EINTR) return;
    if (r <= 0) return;
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return gone("the editor closed the connection");
    in_.append(buf, static_cast<std::size_t>(n));
    if (in_.size() > (1u << 20)) return gone("the editor sent a line longer than 1 MiB");
    for (std::size_t nl; (nl = in_.find('\n')) != std::string::npos;) {
      handle(in_.substr(0, nl));
      in_.erase(0, nl + 1);
    }
  }

  /** The editor's control lines are exactly the forms of docs/live-protocol.md. */
  void handle(const std::string& line) {
    const std::string kind = stringField(line, "live");
    if (kind == "welcome")
      welcomed_ = true;
    else if (kind == "refused") {
      refused_ = "the editor refused the connection: " + stringField(line, "reason");
      fail(refused_);
    } else if (kind == "arm")
      armed_ = true;
    else if (kind == "disarm")
      armed_ = false;
    else if (kind == "go") {
      const std::size_t at = line.find("\"frame\":");
      if (at != std::string::npos)
        go_ = std::max(go_, static_cast<std::int64_t>(std::strtoll(line.c_str() + at + 8, nullptr, 10)));
    }
  }

  static std::string stringField(const std::string& line, const std::string& key) {
    const std::string k = "\"" + key + "\":\"";
    const std::size_t at = line.find(k);
    if (at == std::string::npos) return "";
    const std::size_t end = line.find('"', at + k.size());
    return line.substr(at + k.size(), end == std::string::npos ? std::string::npos : end - at - k.size());
  }
#endif

  void gone(const char* why) {
    if (fd_ < 0) return;
    if (welcomed_) std::fprintf(stderr, "contact-lens: live: %s; writing the file only\n", why);
#if !defined(_WIN32)
    ::close(fd_);
#endif
    fd_ = -1;
    armed_ = false;
  }

  int fd_ = -1;
  bool welcomed_ = false, armed_ = false;
  std::int64_t go_ = -1;
  std::string in_, refused_;
};

}  // namespace detail

inline Body Body::sphere(std::string name, double radius, double mass) {
  double i = 0.4 * mass * radius * radius;
  return Body{std::move(name),
              "{\"sphere\":{\"radius\":" + detail::number(radius, "shape.sphere.radius") + "}}",
              false,
              mass,
              {i, i, i}};
}

inline Body Body::box(std::string name, const Vec3& h, double mass) {
  std::string shape = "{\"box\":{\"halfExtents\":";
  detail::appendArray(shape, h, "shape.box.halfExtents");
  shape += "}}";
  double k = mass / 3.0;
  return Body{std::move(name),
              shape,
              false,
              mass,
              {k * (h[1] * h[1] + h[2] * h[2]), k * (h[0] * h[0] + h[2] * h[2]), k * (h[0] * h[0] + h[1] * h[1])}};
}

inline Body Body::plane(std::string name, const Vec3& normal, double offset) {
  std::string shape = "{\"plane\":{\"normal\":";
  detail::appendArray(shape, normal, "shape.plane.normal");
  shape += ",\"offset\":" + detail::number(offset, "shape.plane.offset") + "}}";
  return Body{std::move(name), shape, true, 0, {}};
}

/** Writes a recording line by line. Movable, not copyable; the destructor closes the file. */
class Recorder {
 public:
  /** Writes and flushes the header. Throws RecordingError if path exists (unless overwrite) or a value is bad. */
  static Recorder create(const std::string& path, const Header& h, bool overwrite = false) {
    std::string line = headerLine(h);
    // "x" (C11 / glibc, MSVC): fail if the file exists, atomically
    std::FILE* f = std::fopen(path.c_str(), overwrite ? "wb" : "wbx");
    if (!f) {
      std::FILE* probe = overwrite ? nullptr : std::fopen(path.c_str(), "rb");
      if (probe) {
        std::fclose(probe);
        throw RecordingError(path + ": already exists (pass overwrite = true to replace it)");
      }
      throw RecordingError(path + ": cannot be created");
    }
    Recorder r(path, f, h.bodies.size());
    r.live_ = detail::LiveSink::fromEnvironment();
    r.put(line);
    return r;
  }

  Recorder(Recorder&& o) noexcept
      : path_(std::move(o.path_)),
        file_(std::exchange(o.file_, nullptr)),
        bodies_(o.bodies_),
        lastFrame_(o.lastFrame_),
        lastTime_(o.lastTime_),
        initialWritten_(o.initialWritten_),
        framesWritten_(o.framesWritten_),
        live_(std::move(o.live_)) {}
  Recorder& operator=(Recorder&& o) noexcept {
    if (this != &o) {
      close();
      path_ = std::move(o.path_);
      file_ = std::exchange(o.file_, nullptr);
      bodies_ = o.bodies_;
      lastFrame_ = o.lastFrame_;
      lastTime_ = o.lastTime_;
      initialWritten_ = o.initialWritten_;
      framesWritten_ = o.framesWritten_;
      live_ = std::move(o.live_);
    }
    return *this;
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  ~Recorder() { close(); }

  /**
   * Format 1.1: the bodies' state before the first step (line 2), once, before the first frame, so the first
   * step is diagnosed like any other. One state per header body. Nothing is written on error.
   */
  void writeInitial(const std::vector<BodyState>& bodies) {
    if (lastFrame_ >= 0 || initialWritten_)
      throw RecordingError(path_ + ": initial: the initial state is written once, before the first frame");
    std::string s = "{\"initial\":{\"bodies\":";
    try {
      detail::requireSize(bodies.size(), bodies_, "initial.bodies");
      appendStates(s, bodies, "initial.bodies");
    } catch (const RecordingError& e) {
      throw RecordingError(path_ + ": " + e.what());
    }
    put(s + "}}\n");
    initialWritten_ = true;
  }

  /** Validates the whole frame, then writes it as one line and flushes. Nothing is written on error. */
  void writeFrame(const Frame& f) {
    std::string line;
    try {
      line = frameLine(f);
    } catch (const RecordingError& e) {
      throw RecordingError(path_ + ": frame " + std::to_string(f.frame) + ": " + e.what());
    }
    put(line);
    lastFrame_ = f.frame;
    lastTime_ = f.time;
    ++framesWritten_;
    if (live_) live_->frameWritten(f.frame);  // returns when the editor lets the frame go, while a break is armed
  }

  /** Writes the closing line {"end":{"frames":N}} and closes the file (and the editor's connection). */
  void close() {
    if (file_) {
      const std::string end = "{\"end\":{\"frames\":" + std::to_string(framesWritten_) + "}}\n";
      std::fwrite(end.data(), 1, end.size(), file_);
      if (live_) live_->send(end);
      std::fclose(file_);
    }
    file_ = nullptr;
    live_.reset();
  }

  /** True while the lines also go to the editor (CONTACT_LENS_LIVE). */
  bool streaming() const { return live_ && live_->connected(); }

  const std::string& path() const { return path_; }

 private:
  Recorder(std::string path, std::FILE* f, std::size_t bodies) : path_(std::move(path)), file_(f), bodies_(bodies) {}

  void put(const std::string& line) {
    if (!file_) throw RecordingError(path_ + ": the recorder is closed");
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
      throw RecordingError(path_ + ": write failed");
    if (live_) live_->send(line);
  }

  static std::string headerLine(const Header& h) {
    using namespace detail;
    if (h.bodies.empty()) throw RecordingError("bodies: at least one body is required");
    if (!(h.dt > 0) || !std::isfinite(h.dt)) throw RecordingError("dt: must be a finite number > 0");
    std::string s = "{\"format\":\"contact-lens-recording\",\"version\":1,\"producer\":{\"name\":";
    appendString(s, h.producerName);
    if (!h.producerVersion.empty()) {
      s += ",\"version\":";
      appendString(s, h.producerVersion);
    }
    s += "},\"units\":\"SI\",\"conventions\":{\"up\":\"z\",\"quaternion\":\"wxyz\",\"normal\":\"b-to-a\",\"impulse\":"
         "\"per-step\"}";
    s += ",\"dt\":";
    appendNumber(s, h.dt, "dt");
    s += ",\"gravity\":";
    appendArray(s, h.gravity, "gravity");
    s += ",\"bodies\":[";
    for (std::size_t i = 0; i < h.bodies.size(); ++i) {
      const Body& b = h.bodies[i];
      const std::string field = "bodies[" + std::to_string(i) + "]";
      if (i) s += ',';
      s += "{\"name\":";
      appendString(s, b.name);
      s += ",\"shape\":" + b.shapeJson;
      if (b.isStatic) {
        s += ",\"mass\":null,\"inertia\":null,\"static\":true}";
        continue;
      }
      s += ",\"mass\":";
      appendNumber(s, b.mass, field + ".mass");
      if (!(b.mass > 0)) throw RecordingError(field + ".mass: must be > 0 (make the body static instead)");
      if (b.inertia.size() != 3 && b.inertia.size() != 9)
        throw RecordingError(field + ".inertia: has " + std::to_string(b.inertia.size()) + " numbers, expected 3 or 9");
      s += ",\"inertia\":";
      appendArray(s, b.inertia, field + ".inertia");
      s += ",\"static\":false}";
    }
    s += ']';
    if (!h.solverName.empty()) {
      s += ",\"solver\":{\"name\":";
      appendString(s, h.solverName);
      if (!h.solverKind.empty()) {
        s += ",\"kind\":";
        appendString(s, h.solverKind);
      }
      for (const auto& [k, v] : h.solverParams) {
        s += ',';
        appendString(s, k);
        s += ':';
        appendNumber(s, v, "solver." + k);
      }
      s += '}';
    }
    return s + "}\n";
  }

  static void appendStates(std::string& s, const std::vector<BodyState>& states, const std::string& name) {
    using namespace detail;
    s += '[';
    for (std::size_t i = 0; i < states.size(); ++i) {
      const BodyState& b = states[i];
      const std::string field = name + "[" + std::to_string(i) + "]";
      if (i) s += ',';
      s += "{\"x\":";
      appendArray(s, b.x, field + ".x");
      s += ",\"q\":";
      appendArray(s, b.q, field + ".q");
      s += ",\"v\":";
      appendArray(s, b.v, field + ".v");
      s += ",\"w\":";
      appendArray(s, b.w, field + ".w");
      s += '}';
    }
    s += ']';
  }

  std::string frameLine(const Frame& f) const {
    using namespace detail;
    if (f.frame < 0) throw RecordingError("frame: must be >= 0");
    if (f.frame <= lastFrame_)
      throw RecordingError("frame: not greater than the previous frame " + std::to_string(lastFrame_));
    std::string s = "{\"frame\":" + std::to_string(f.frame) + ",\"time\":";
    appendNumber(s, f.time, "time");
    if (!(f.time > lastTime_)) throw RecordingError("time: not greater than the previous frame's time");
    requireSize(f.bodies.size(), bodies_, "bodies");
    s += ",\"bodies\":";
    appendStates(s, f.bodies, "bodies");
    if (!f.pre.empty()) {
      requireSize(f.pre.size(), bodies_, "pre");
      s += ",\"pre\":[";
      for (std::size_t i = 0; i < f.pre.size(); ++i) {
        const PreState& p = f.pre[i];
        const std::string field = "pre[" + std::to_string(i) + "]";
        if (i) s += ',';
        s += "{\"v\":";
        appendArray(s, p.v, field + ".v");
        s += ",\"w\":";
        appendArray(s, p.w, field + ".w");
        if (p.hasPose) {
          s += ",\"x\":";
          appendArray(s, p.x, field + ".x");
          s += ",\"q\":";
          appendArray(s, p.q, field + ".q");
        }
        s += '}';
      }
      s += ']';
    }
    s += ",\"contacts\":[";
    for (std::size_t k = 0; k < f.contacts.size(); ++k) {
      const Contact& c = f.contacts[k];
      const std::string field = "contacts[" + std::to_string(k) + "]";
      if (c.a < 0 || c.b < -1 || static_cast<std::size_t>(c.a) >= bodies_ ||
          (c.b >= 0 && static_cast<std::size_t>(c.b) >= bodies_) || c.a == c.b)
        throw RecordingError(field + ": body indices a = " + std::to_string(c.a) + ", b = " + std::to_string(c.b) +
                             " (need 0 <= a < " + std::to_string(bodies_) + ", -1 <= b, a != b)");
      if (k) s += ',';
      s += "{\"a\":" + std::to_string(c.a) + ",\"b\":" + std::to_string(c.b);
      s += ",\"point\":";
      appendArray(s, c.point, field + ".point");
      s += ",\"normal\":";
      appendArray(s, c.normal, field + ".normal");
      s += ",\"t1\":";
      appendArray(s, c.t1, field + ".t1");
      s += ",\"t2\":";
      appendArray(s, c.t2, field + ".t2");
      s += ",\"depth\":";
      appendNumber(s, c.depth, field + ".depth");
      s += ",\"mu\":";
      appendNumber(s, c.mu, field + ".mu");
      s += ",\"e\":";
      appendNumber(s, c.e, field + ".e");
      if (!c.feature.empty()) {
        s += ",\"feature\":";
        appendString(s, c.feature);
      }
      s += '}';
    }
    s += ']';
    const SolverResult& r = f.solver;
    if (r.status != "converged" && r.status != "max-iterations" && r.status != "stalled" && r.status != "failed")
      throw RecordingError("solver.status: is \"" + r.status +
                           "\", expected converged, max-iterations, stalled or failed");
    const std::size_t n = 3 * f.contacts.size();
    s += ",\"solver\":{\"name\":";
    appendString(s, r.name);
    s += ",\"status\":";
    appendString(s, r.status);
    if (!r.reason.empty()) {
      s += ",\"reason\":";
      appendString(s, r.reason);
    }
    if (r.iterations >= 0) s += ",\"iterations\":" + std::to_string(r.iterations);
    if (!r.residuals.empty()) {
      s += ",\"residuals\":";
      appendArray(s, r.residuals, "solver.residuals");
    }
    requireSize(r.lambda.size(), n, "solver.lambda");
    s += ",\"lambda\":";
    appendArray(s, r.lambda, "solver.lambda");
    s += '}';
    if (!f.A.empty()) {
      requireSize(f.A.size(), n * n, "A");
      s += ",\"A\":";
      appendArray(s, f.A, "A");
    }
    if (!f.b.empty()) {
      requireSize(f.b.size(), n, "b");
      s += ",\"b\":";
      appendArray(s, f.b, "b");
    }
    if (!f.energy.empty()) {
      s += ",\"energy\":{";
      for (std::size_t i = 0; i < f.energy.size(); ++i) {
        if (i) s += ',';
        appendString(s, f.energy[i].first);
        s += ':';
        appendNumber(s, f.energy[i].second, "energy." + f.energy[i].first);
      }
      s += '}';
    }
    if (!f.external.empty()) {
      s += ",\"external\":[";
      for (std::size_t k = 0; k < f.external.size(); ++k) {
        const ExternalImpulse& x = f.external[k];
        const std::string field = "external[" + std::to_string(k) + "]";
        if (x.body < 0 || static_cast<std::size_t>(x.body) >= bodies_)
          throw RecordingError(field + ".body: is " + std::to_string(x.body) + ", expected a body index 0.." +
                               std::to_string(bodies_ - 1));
        if (x.stage != "before-solve" && x.stage != "with-solve")
          throw RecordingError(field + ".stage: is \"" + x.stage + "\", expected before-solve or with-solve");
        if (k) s += ',';
        s += "{\"body\":" + std::to_string(x.body) + ",\"impulse\":";
        appendArray(s, x.impulse, field + ".impulse");
        if (x.hasAngular) {
          s += ",\"angular\":";
          appendArray(s, x.angular, field + ".angular");
        }
        s += ",\"stage\":";
        appendString(s, x.stage);
        s += '}';
      }
      s += ']';
    }
    return s + "}\n";
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::size_t bodies_ = 0;
  std::int64_t lastFrame_ = -1;
  double lastTime_ = -HUGE_VAL;
  bool initialWritten_ = false;
  std::int64_t framesWritten_ = 0;
  std::unique_ptr<detail::LiveSink> live_;
};

}  // namespace contact_lens
