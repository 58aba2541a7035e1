//! A ball dropped on the ground, recorded with contact_lens_recorder (docs/recording-format.md).
//!   cargo run --offline --example drop -- drop.rec.jsonl [--force]
//! Physics (semi-implicit Euler with one sequential-impulse contact, as in Catto, "Iterative Dynamics with
//! Temporal Coherence", GDC 2005): gravity first, then the ground contact's normal impulse
//! λn = max(0, m b_n) with b_n = −(1 + e) v_n + (erp/dt) max(0, depth − slop) (the format's own b,
//! docs/recording-format.md "Frames"); restitution e = 0.5 only above the rest-velocity threshold; then the
//! position update. The lever arm is parallel to the normal, so A_nn = 1/m and the ball does not spin.
//! Prints the bits of the last frame's ball height so a test can check the round trip bit for bit.
use contact_lens_recorder::{
    Body, BodyState, Contact, Frame, Header, PreState, Recorder, SolverResult, Status,
};

const DT: f64 = 1.0 / 120.0;
const G: f64 = -9.81;
const RADIUS: f64 = 0.1;
const MASS: f64 = 1.0;
const E: f64 = 0.5;
const MU: f64 = 0.5;
const ERP: f64 = 0.2;
const SLOP: f64 = 0.005;
const REST: f64 = 0.5;
const FRAMES: u64 = 240;

fn run(out: &str, force: bool) -> Result<f64, contact_lens_recorder::RecordingError> {
    let header = Header {
        producer_name: "contact-lens-rust-example".into(),
        producer_version: "1.0".into(),
        dt: DT,
        gravity: [0.0, 0.0, G],
        bodies: vec![
            Body::plane("ground", [0.0, 0.0, 1.0], 0.0),
            Body::sphere("ball", RADIUS, MASS),
        ],
        solver_name: "sequential-impulse".into(),
        solver_params: vec![
            ("maxIterations".into(), 1.0),
            ("erp".into(), ERP),
            ("slop".into(), SLOP),
            ("restVelocityThreshold".into(), REST),
        ],
        solver_kind: "iterative-fixed".into(),
    };
    let mut rec = Recorder::create(out, &header, force)?;
    let q = [1.0, 0.0, 0.0, 0.0];
    let (mut z, mut vz) = (1.0f64, 0.0f64);
    for k in 0..FRAMES {
        let v_pre = vz + G * DT; // gravity, before the contact solve
        let depth = RADIUS - z; // ground plane z = 0, normal +z from ground (b) into ball (a)
        let mut contacts = Vec::new();
        let mut lambda = Vec::new();
        if depth >= 0.0 {
            let e = if -v_pre > REST { E } else { 0.0 };
            let b_n = -(1.0 + e) * v_pre + (ERP / DT) * f64::max(0.0, depth - SLOP);
            let lam_n = f64::max(0.0, MASS * b_n); // A_nn = 1/m
            contacts.push(Contact {
                a: 1,
                b: Some(0),
                point: [0.0, 0.0, z - RADIUS],
                normal: [0.0, 0.0, 1.0],
                t1: [1.0, 0.0, 0.0],
                t2: [0.0, 1.0, 0.0],
                depth,
                mu: MU,
                e: E,
                feature: Some("ball/ground".into()),
            });
            lambda = vec![lam_n, 0.0, 0.0];
        }
        vz = v_pre + lambda.first().copied().unwrap_or(0.0) / MASS;
        let z_pre = z;
        z += vz * DT; // positions after the solve (semi-implicit Euler)
        let iterations = Some(if contacts.is_empty() { 0 } else { 1 });
        rec.write_frame(&Frame {
            frame: k,
            time: (k + 1) as f64 * DT,
            bodies: vec![
                BodyState::default(),
                BodyState {
                    x: [0.0, 0.0, z],
                    q,
                    v: [0.0, 0.0, vz],
                    w: [0.0; 3],
                },
            ],
            pre: vec![
                PreState::default(),
                PreState {
                    v: [0.0, 0.0, v_pre],
                    w: [0.0; 3],
                    pose: Some(([0.0, 0.0, z_pre], q)),
                },
            ],
            contacts,
            solver: SolverResult {
                name: "sequential-impulse".into(),
                status: Status::Converged,
                reason: None,
                iterations,
                residuals: vec![],
                lambda,
            },
            a_matrix: vec![],
            b_vector: vec![],
            energy: vec![],
        })?;
    }
    Ok(z)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: drop OUT.rec.jsonl [--force]");
        std::process::exit(2);
    }
    match run(&args[1], args.iter().any(|a| a == "--force")) {
        Ok(z) => println!(
            "wrote {FRAMES} frames to {}; last z bits {}",
            args[1],
            z.to_bits()
        ),
        Err(e) => {
            eprintln!("drop: {e}");
            std::process::exit(1);
        }
    }
}
