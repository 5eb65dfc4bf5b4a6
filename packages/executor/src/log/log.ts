/** One structured log line on stderr: a JSON object named by its `kind`, with the time. */
export function logLine(entry: { readonly kind: string; readonly [field: string]: unknown }): void {
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
}
