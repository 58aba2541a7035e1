/**
 * Scenario files (`*.scene.json`, docs/scene-format.md, schemas/scene.schema.json): one strict JSON object
 * `{ "$schema"?, "scenarios": [ … ] }` holding named scenarios → ScenarioDesc (engine/world/types.ts) plus
 * the expectations `contact-lens check` verifies.
 *
 * The entry point other layers import; the work is split by job:
 *   sceneTypes.ts   types, defaults, the fields each object accepts, SceneFormatError
 *   sceneParser.ts  validation and conversion (parseSceneFile), on the shared field reader (fieldReader.ts)
 *   sceneOutline.ts the lenient outline for CodeLenses (scenarioRanges)
 */
export {
  COMBINE_RULES,
  EXPECTATION_FIELDS,
  EXPECTATION_KINDS,
  MAX_SCENE_FRAMES,
  SCENE_DEFAULTS,
  SCENE_FIELD_NAMES,
  SCENE_FILE_SUFFIX,
  SceneFormatError,
  SOLVER_OPTION_KEYS,
  type Expectation,
  type ExpectationKind,
  type ParsedScenario,
  type ScenarioOutline,
  type SceneWarning,
  type SceneWarningKind,
  type SourceRange,
} from './sceneTypes.js';
export { parseSceneFile } from './sceneParser.js';
export { scenarioRanges } from './sceneOutline.js';
