import { jobBodySchemas, jobCredentialFields } from "../src/index.js";

/** Where each kind's body holds credentials, read from the server's own schemas, for registries built in tests. */
export const jobCredentials = jobCredentialFields(
  jobBodySchemas({
    maxConsecutiveMcpCalls: 1,
    maxConsecutiveWebCalls: 1,
    maxConsecutiveNonActionCalls: 1,
    noEditCallLimit: 1,
    allowFileRemotes: false,
  }),
);
