/**
 * The engine's public API: the one module the outer layers (src/format, session, cli, extension) import.
 * test/unit/layers.test.ts fails on an import of any other engine module from outside src/engine, so a
 * name that another layer needs is added here, on purpose. Grouped by concept (docs/ARCHITECTURE.md).
 */

// numbers, vectors, rotations
export { formatCount, formatNumber, formatQuantity, formatSigned } from './numberText.js';
export type { Vec3 } from './math/vec3.js';
export type { Mat3 } from './math/mat3.js';
export { mul, mulTransposed, transpose, ZERO3 } from './math/mat3.js';
export type { Quat } from './math/quat.js';
export { quatComponentsToMat3, quatToMat3 } from './math/quat.js';
export { lanczosExtremes, symmetricEigenvalues, symmetricEigenvaluesOverwriting } from './math/eigen.js';

// a contact problem: A, b, μ, bodies and contact points
export type { BodyState, ContactPoint, ContactProblem, ProblemStructure, RhsDecomposition } from './problem.js';
export { checkPositiveSemidefinite, checkProblemFinite, MAX_PROBLEM_CONTACTS, makeProblem, ProblemError } from './problem.js';
export type { AssemblyOptions, ContactJacobians, ContactsByBody } from './assembly.js';
export {
  ASSEMBLY_REGULARIZATION,
  assembleJacobians,
  assembleProblem,
  contactsByBody,
  DEFAULT_ASSEMBLY,
  denseProblem,
  isStatic,
  jacobianVelocityChanges,
} from './assembly.js';
export type { DelassusBlocks } from './delassusBlocks.js';
export { delassusBlocks, denseFromDelassusBlocks, problemFromDelassusBlocks } from './delassusBlocks.js';

// conditioning of A and its causes
export type { Conditioning } from './conditioning.js';
export {
  conditioning,
  conditioningFrom,
  DEFAULT_EXACT_LIMIT,
  pivotedCholesky,
  RANGE_RELATIVE_THRESHOLD,
  rankToleranceFor,
  regularizationOf,
  spectrumRank,
} from './conditioning.js';
export type { ConditioningCause } from './conditioningCauses.js';
export { conditioningCauses } from './conditioningCauses.js';

// optimality: the KKT residual and the Coulomb merit
export type { ContactClass } from './kkt.js';
export { KktWorkspace, kkt } from './kkt.js';
export { coulombMerit, coulombMeritFromU } from './coulombMerit.js';

// solvers: the one entry point, names and options
export type { PgsFrictionLaw, SolveOptions, SolveResult, SolverName } from './solvers/types.js';
export { problemSolvedBy, SOLVER_NAMES } from './solvers/types.js';
export { solve } from './solvers/solve.js';
export { SOLVER_REGISTRY } from './solvers/registry.js';
export { STATUS_RANK, worstStatus } from './solvers/statusOrder.js';
export { MAX_BACKTRACKS, MAX_SOLVER_ITERATIONS } from './solvers/limits.js';
export { convexifiedNote } from './solvers/convexify.js';

// re-solving one island of a recorded frame (counterfactuals and what-if): the matrix-free rows, the
// Gauss–Seidel continuation, the sparse interior point and the rows of the KKT residual without A
export type { MatrixFreeRows } from './solvers/pgsRows.js';
export { matrixFreeRows } from './solvers/pgsRows.js';
export { GaussSeidelContinuation } from './solvers/pgs.js';
export { solveIpmSparse } from './solvers/ipmSparse.js';
export { kktRows } from './solvers/naturalMapSparse.js';
export { solveMatrixFree } from './island/solveMatrixFree.js';
export { assemblyOptions, DENSE_ISLAND_LIMIT } from './island/solveIsland.js';

// the world: scenario descriptions, the step, islands and the energy ledger
export type { BodyDesc, CombineRule, FaultInjection, MaterialDesc, ScenarioDesc, ShapeDesc, StepConfig } from './world/types.js';
export type { FrameRecord } from './world/world.js';
export { World } from './world/world.js';
export { buildIslands } from './collision/islands.js';
export { gapRatesAfter, impulseEnergyChange } from './world/energy.js';

// names the compare, live and at-scale features use
export { mulQuat, normalizeQuat, rotate } from './math/quat.js';
export { cross, dot, normalize, tangentBasis } from './math/vec3.js';
export { combine, principalInertia } from './world/world.js';
export { hypot2Exact, hypot3, hypot4 } from './math/hypot.js';
