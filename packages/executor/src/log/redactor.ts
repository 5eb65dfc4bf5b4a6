// A job's redactor is Castellan's one redactor (@castellan/harness createRedactor): every
// credential of the job, whatever its length, is replaced in what the job shows, saves or logs.
export { createRedactor, type Redactor } from "@castellan/harness";
