// A test engine for the live tests (test/unit/live-writers.test.ts): replays our engine's frames, read from a
// table (test/live/replayTable.ts), through writers/cpp — its file sink and, when CONTACT_LENS_LIVE is set,
// the editor. Paced at FPS frames per second (0: as fast as it can); prints "frame K sent T" before and
// "frame K returned T" after writeFrame (T: ms since the epoch), so a test sees where a break holds the engine.
//   replay TABLE OUT.rec.jsonl FPS
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "contact_lens_recorder.hpp"

namespace cl = contact_lens;

/** Milliseconds since the epoch (what the tests compare with performance.timeOrigin + performance.now()). */
static double epochMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  if (argc < 4) { std::cerr << "usage: replay TABLE OUT FPS\n"; return 2; }
  std::ifstream in(argv[1]);
  std::string word, solver;
  cl::Header h;
  std::size_t nb = 0;
  std::string kind;
  std::size_t np = 0;
  in >> word >> h.dt >> h.gravity[0] >> h.gravity[1] >> h.gravity[2] >> nb >> solver >> kind >> np;
  h.producerName = "contact-lens-cpp-replay";
  h.solverName = solver;
  if (kind != "-") h.solverKind = kind;
  for (std::size_t i = 0; i < np; ++i) {
    std::string k;
    double v;
    in >> k >> v;
    h.solverParams.emplace_back(k, v);
  }
  for (std::size_t i = 0; i < nb; ++i) {
    std::string name, shape;
    int isStatic;
    double mass;
    in >> word >> name >> isStatic >> mass >> shape;
    cl::Body b;
    if (shape == "sphere") { double r; in >> r; b = cl::Body::sphere(name, r, isStatic ? 1 : mass); }
    else if (shape == "box") { cl::Vec3 e; in >> e[0] >> e[1] >> e[2]; b = cl::Body::box(name, e, isStatic ? 1 : mass); }
    else { cl::Vec3 nrm; double d; in >> nrm[0] >> nrm[1] >> nrm[2] >> d; b = cl::Body::plane(name, nrm, d); }
    std::size_t ni; in >> ni;
    std::vector<double> inertia(ni);
    for (double& x : inertia) in >> x;
    if (!b.isStatic) b.inertia = inertia;
    h.bodies.push_back(b);
  }
  const double fps = std::atof(argv[3]);
  try {
    cl::Recorder rec = cl::Recorder::create(argv[2], h, true);
    std::printf("streaming %d\n", rec.streaming() ? 1 : 0);
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; in >> word && word == "frame"; ++k) {
      cl::Frame f;
      std::size_t B, C;
      int hasPre, status, R;
      in >> f.frame >> f.time >> B >> C >> hasPre >> f.solver.iterations >> status >> R;
      static const char* statuses[] = {"converged", "max-iterations", "stalled", "failed"};
      f.solver.name = solver;
      f.solver.status = statuses[status];
      f.bodies.resize(B);
      for (auto& b : f.bodies) in >> b.x[0] >> b.x[1] >> b.x[2] >> b.q[0] >> b.q[1] >> b.q[2] >> b.q[3] >> b.v[0] >> b.v[1] >> b.v[2] >> b.w[0] >> b.w[1] >> b.w[2];
      if (hasPre) {
        f.pre.resize(B);
        for (auto& p : f.pre) {
          int pose;
          in >> p.v[0] >> p.v[1] >> p.v[2] >> p.w[0] >> p.w[1] >> p.w[2] >> pose;
          p.hasPose = pose != 0;
          if (p.hasPose) in >> p.x[0] >> p.x[1] >> p.x[2] >> p.q[0] >> p.q[1] >> p.q[2] >> p.q[3];
        }
      }
      f.contacts.resize(C);
      for (auto& c : f.contacts) {
        in >> c.a >> c.b >> c.point[0] >> c.point[1] >> c.point[2] >> c.normal[0] >> c.normal[1] >> c.normal[2] >> c.t1[0] >> c.t1[1] >> c.t1[2] >> c.t2[0] >>
            c.t2[1] >> c.t2[2] >> c.depth >> c.mu >> c.e >> c.feature;
        if (c.feature == "-") c.feature.clear();
      }
      f.solver.lambda.resize(3 * C);
      for (double& x : f.solver.lambda) in >> x;
      f.solver.residuals.resize(static_cast<std::size_t>(R));
      for (double& x : f.solver.residuals) in >> x;
      if (fps > 0) std::this_thread::sleep_until(t0 + std::chrono::microseconds(static_cast<long long>(k * 1e6 / fps)));
      std::printf("frame %lld sent %.3f\n", static_cast<long long>(f.frame), epochMs());
      std::fflush(stdout);
      rec.writeFrame(f);
      std::printf("frame %lld returned %.3f\n", static_cast<long long>(f.frame), epochMs());
      std::fflush(stdout);
    }
    rec.close();
  } catch (const cl::RecordingError& e) {
    std::cerr << "replay: " << e.what() << "\n";
    return 1;
  }
  std::printf("closed\n");
  return 0;
}
