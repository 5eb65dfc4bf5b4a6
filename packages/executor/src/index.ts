export { type ExecutorKnobs, knobVariables, resolveKnobs } from "./config/knobs.js";
export {
  type ExecutorServerOptions,
  minTokenLength,
  type ResolvedExecutorOptions,
  resolveExecutorOptions,
} from "./config/options.js";
export {
  ExecutorConfigError,
  type ExecutorErrorCode,
  type ExecutorErrorField,
  ExecutorRequestError,
  type ExecutorWireCode,
  executorWireCodes,
} from "./errors.js";
export { executorVersion, type HealthMeasurement, type HealthView, jobKinds } from "./http/health.js";
export { maxBodyBytes } from "./http/read-json.js";
export { createExecutorServer, type ExecutorServer } from "./http/server.js";
export { type JobBody, jobBodySchema, outOfScopeFields, parseJobBody, unservedFields } from "./jobs/job-body.js";
export { isJobId, jobIdPattern } from "./jobs/job-id.js";
