export {
  type EnvironmentPolicy,
  isNeverPassed,
  type ResolvedEnvironmentPolicy,
  resolveEnvironmentPolicy,
} from "./environment/environment-policy.js";
export { EnvironmentPolicyError } from "./environment/policy-error.js";
