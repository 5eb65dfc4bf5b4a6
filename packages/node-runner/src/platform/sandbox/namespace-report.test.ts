// The runtime's bubblewrap command line gains `--info-fd 3` in both of its shapes, and any
// other shape is refused rather than run without the report.
import { describe, expect, it } from "vitest";
import { withNamespaceReport } from "./namespace-report.js";

const bwrap = "/usr/bin/bwrap";
const options = "--new-session --die-with-parent --ro-bind / / --unshare-pid -- /bin/sh -c 'echo --new-session'";

describe("withNamespaceReport", () => {
  it("adds --info-fd 3 right after bubblewrap when the runtime runs it directly", () => {
    expect(withNamespaceReport(["/bin/sh", "-c", `${bwrap} ${options}`], bwrap, "linux")).toEqual({
      argv: ["/bin/sh", "-c", `${bwrap} --info-fd 3 ${options}`],
      reportFd: 3,
    });
  });

  it("adds it after bubblewrap when its mounts go through the runtime's argument file", () => {
    const prefix = `/bin/sh -c 'exec 9<"$1" && shift && exec "$@"' srt-args /proc/4242/fd/31 `;
    const given = `${prefix}${bwrap} --new-session --die-with-parent --args 9 --unshare-pid -- /bin/sh -c true`;
    expect(withNamespaceReport(["/bin/sh", "-c", given], bwrap, "linux").argv[2]).toBe(
      `${prefix}${bwrap} --info-fd 3 --new-session --die-with-parent --args 9 --unshare-pid -- /bin/sh -c true`,
    );
  });

  it("finds a bubblewrap path that the runtime had to quote", () => {
    const path = "/opt/my tools/bwrap";
    const given = `'/opt/my tools/bwrap' ${options}`;
    expect(withNamespaceReport(["/bin/bash", "-c", given], path, "linux").argv[2]).toBe(
      `'/opt/my tools/bwrap' --info-fd 3 ${options}`,
    );
  });

  it("refuses a command line of another shape (sandbox_unavailable), even one that names bubblewrap later", () => {
    for (const given of [
      `env ${bwrap} ${options}`,
      `/usr/local/bin/bwrap ${options}`,
      `echo hi; ${bwrap} ${options}`,
    ]) {
      expect(() => withNamespaceReport(["/bin/sh", "-c", given], bwrap, "linux")).toThrow(
        expect.objectContaining({ code: "sandbox_unavailable" }),
      );
    }
    expect(() => withNamespaceReport(["/bin/sh", `${bwrap} ${options}`], bwrap, "linux")).toThrow(
      expect.objectContaining({ code: "sandbox_unavailable" }),
    );
  });

  it("leaves the argv alone off Linux, where the runtime runs no bubblewrap", () => {
    const argv = ["/bin/sh", "-c", "sandbox-exec -p '(version 1)' /bin/sh -c true"];
    expect(withNamespaceReport(argv, bwrap, "darwin")).toEqual({ argv, reportFd: undefined });
  });
});
