export {
  GoalConflictError,
  GoalInvalidError,
  GoalSettlementObsoleteError,
  GoalStoreCorruptError,
  GoalStoreLockedError,
} from "./errors.js";
export { createFileGoalStore, goalLimits } from "./file-goal-store.js";
export { type GoalObservation, GoalStoreFailedError, goal, goalObservationKey } from "./goal-capability.js";
export type { Goal, GoalControl, GoalPort, GoalSettlement, GoalStatus, GoalStore } from "./types.js";
