// A ball dropped on the ground, recorded with contact_lens_recorder.hpp (docs/recording-format.md).
//   g++ -std=c++17 -O2 -ffp-contract=off example.cpp -o drop && ./drop drop.rec.jsonl [--force]
// Physics (semi-implicit Euler with one sequential-impulse contact, as in Catto, "Iterative Dynamics with
// Temporal Coherence", GDC 2005): gravity first, then the ground contact's normal impulse
// lambda_n = max(0, m b_n) with b_n = -(1 + e) v_n + (erp/dt) max(0, depth - slop) (the format's own b,
// docs/recording-format.md "Frames"); restitution e = 0.5 only above the rest-velocity threshold; then the
// position update. The lever arm is parallel to the normal, so A_nn = 1/m and the ball does not spin.
// Prints the bits of the last frame's ball height so a test can check the round trip bit for bit.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "contact_lens_recorder.hpp"

namespace cl = contact_lens;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: drop OUT.rec.jsonl [--force]\n";
    return 2;
  }
  const double DT = 1.0 / 120.0, G = -9.81, RADIUS = 0.1, MASS = 1.0;
  const double E = 0.5, MU = 0.5, ERP = 0.2, SLOP = 0.005, REST = 0.5;
  const int FRAMES = 240;
  try {
    cl::Header h;
    h.producerName = "contact-lens-cpp-example";
    h.producerVersion = "1.0";
    h.dt = DT;
    h.gravity = {0.0, 0.0, G};
    h.bodies = {cl::Body::plane("ground", {0.0, 0.0, 1.0}, 0.0), cl::Body::sphere("ball", RADIUS, MASS)};
    h.solverName = "sequential-impulse";
    h.solverParams = {{"maxIterations", 1}, {"erp", ERP}, {"slop", SLOP}, {"restVelocityThreshold", REST}};
    h.solverKind = "iterative-fixed";
    cl::Recorder rec = cl::Recorder::create(argv[1], h, argc > 2 && std::strcmp(argv[2], "--force") == 0);
    double z = 1.0, vz = 0.0;
    for (int k = 0; k < FRAMES; ++k) {
      const double vPre = vz + G * DT;  // gravity, before the contact solve
      const double depth = RADIUS - z;  // ground plane z = 0, normal +z from ground (b) into ball (a)
      cl::Frame f;
      f.frame = k;
      f.time = (k + 1) * DT;
      f.solver.name = "sequential-impulse";
      double lamN = 0.0;
      if (depth >= 0.0) {
        const double e = -vPre > REST ? E : 0.0;
        const double bN = -(1.0 + e) * vPre + (ERP / DT) * std::max(0.0, depth - SLOP);
        lamN = std::max(0.0, MASS * bN);  // A_nn = 1/m
        cl::Contact c;
        c.a = 1;
        c.b = 0;
        c.point = {0.0, 0.0, z - RADIUS};
        c.depth = depth;
        c.mu = MU;
        c.e = E;
        c.feature = "ball/ground";
        f.contacts.push_back(c);
        f.solver.lambda = {lamN, 0.0, 0.0};
      }
      f.solver.iterations = f.contacts.empty() ? 0 : 1;
      vz = vPre + lamN / MASS;
      const double zPre = z;
      z = z + vz * DT;  // positions after the solve (semi-implicit Euler)
      f.bodies = {cl::BodyState{}, cl::BodyState{{0.0, 0.0, z}, {1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, vz}, {}}};
      f.pre = {cl::PreState{}, cl::PreState{{0.0, 0.0, vPre}, {}, true, {0.0, 0.0, zPre}, {1.0, 0.0, 0.0, 0.0}}};
      rec.writeFrame(f);
    }
    std::uint64_t bits;
    std::memcpy(&bits, &z, sizeof bits);
    std::cout << "wrote " << FRAMES << " frames to " << argv[1] << "; last z bits " << bits << "\n";
  } catch (const cl::RecordingError& e) {
    std::cerr << "drop: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
