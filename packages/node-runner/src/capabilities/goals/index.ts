export {
  type DriveGoalOptions,
  type DriveGoalResult,
  driveGoal,
  goalInputId,
  goalInputIdPrefix,
} from "./drive-goal.js";
export type {
  ActiveCommandSession,
  GoalContinueDecision,
  GoalDriveDecision,
  GoalDriverFacts,
  GoalDriverPolicy,
  GoalHostFacts,
} from "./driver-types.js";
export { goalDriverDefaults } from "./driver-types.js";
export {
  GoalConflictError,
  GoalDriverInvalidError,
  GoalInvalidError,
  GoalSettlementObsoleteError,
  GoalStoreCorruptError,
  GoalStoreLockedError,
} from "./errors.js";
export { createFileGoalStore, goalLimits } from "./file-goal-store.js";
export { type GoalObservation, GoalStoreFailedError, goal, goalObservationKey } from "./goal-capability.js";
export {
  createGoalDriverController,
  type GoalAdmission,
  type GoalDriverController,
  type GoalDriverControllerOptions,
  type GoalDriverSnapshot,
} from "./goal-driver-controller.js";
export type { Goal, GoalControl, GoalPort, GoalSettlement, GoalStatus, GoalStore } from "./types.js";
