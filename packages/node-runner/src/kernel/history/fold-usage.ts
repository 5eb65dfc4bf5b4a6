import type { SessionRecord } from "../store/records.js";
import { SessionHistory } from "./session-history.js";
import type { UsageReport } from "./usage-ledger.js";

/**
 * The usage report of a Session's records: the fold `session.usage()` answers from, so a
 * viewer that read the records through a `SessionCatalog` shows exactly what the open Session
 * reports. Throws SessionLogError when the records do not fit together (as opening them would).
 */
export function foldSessionUsage(records: readonly SessionRecord[]): UsageReport {
  const history = new SessionHistory();
  records.forEach((record, index) => {
    history.apply(record, index + 1);
  });
  return history.usage.report();
}
