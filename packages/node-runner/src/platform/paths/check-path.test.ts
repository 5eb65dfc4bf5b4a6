import { isToolInputError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import {
  checkWorkspacePath,
  isWorkspacePath,
  maxWorkspacePathBytes,
  maxWorkspaceSegmentBytes,
} from "../../kernel/workspace-path/check-path.js";

/** The refusal `checkWorkspacePath` throws for `path`, or undefined when it accepts it. */
function refusalOf(path: unknown): { code: string; message: string } | undefined {
  try {
    checkWorkspacePath(path);
    return undefined;
  } catch (error) {
    if (!isToolInputError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe("checkWorkspacePath", () => {
  it("splits a relative POSIX path into its segments, and `.` into none", () => {
    expect(checkWorkspacePath("src/index.ts")).toEqual(["src", "index.ts"]);
    expect(checkWorkspacePath("a")).toEqual(["a"]);
    expect(checkWorkspacePath(".")).toEqual([]);
    expect(checkWorkspacePath(".hidden/..dots/...")).toEqual([".hidden", "..dots", "..."]);
    expect(checkWorkspacePath("a b/ü/日本")).toEqual(["a b", "ü", "日本"]);
  });

  it.each([
    ["..", "`..`"],
    ["a/../..", "`..`"],
    ["../outside.txt", "`..`"],
    ["a/..", "`..`"],
    ["./a", "`.` segment"],
    ["a/./b", "`.` segment"],
    ["a/.", "`.` segment"],
  ])("refuses the traversal %j", (path, why) => {
    const refusal = refusalOf(path);
    expect(refusal?.code).toBe("path_invalid");
    expect(refusal?.message).toContain(why);
  });

  it.each([
    ["", "empty"],
    ["/etc/passwd", "absolute"],
    ["/", "absolute"],
    ["a//b", "empty segment"],
    ["a/", "trailing slash"],
    ["a\\b", "backslash"],
    ["..\\..\\x", "backslash"],
    ["C:\\x", "backslash"],
    ["a\u0000b", "NUL"],
    ["a\nb", "control character"],
    ["a\tb", "control character"],
    ["a\u001bb", "control character"],
    ["a\u007fb", "control character"],
    ["a\u0085b", "control character"],
    ["a\u009bb", "control character"],
    ["a\ud800b", "lone surrogate"],
    ["a\udc00", "lone surrogate"],
  ])("refuses %j (%s) before any I/O", (path, why) => {
    const refusal = refusalOf(path);
    expect(refusal?.code).toBe("path_invalid");
    expect(refusal?.message).toContain(why);
  });

  it.each([undefined, null, 3, ["a"], { path: "a" }])("refuses the non-string %j", (path) => {
    expect(refusalOf(path)).toMatchObject({ code: "path_invalid", message: expect.stringContaining("string") });
  });

  it("bounds a segment at 255 bytes of UTF-8 and the path at 4,096", () => {
    expect(maxWorkspaceSegmentBytes).toBe(255);
    expect(maxWorkspacePathBytes).toBe(4096);
    expect(refusalOf("x".repeat(255))).toBeUndefined();
    expect(refusalOf("x".repeat(256))?.code).toBe("path_invalid");
    // Two bytes each: 128 of them are 256 bytes in 128 characters.
    expect(refusalOf("é".repeat(127))).toBeUndefined();
    expect(refusalOf("é".repeat(128))?.message).toContain("256 bytes");

    // 17 names of 240 bytes and 16 slashes.
    const exact = Array.from({ length: 17 }, () => "y".repeat(240)).join("/");
    expect(Buffer.byteLength(exact)).toBe(4096);
    expect(refusalOf(exact)).toBeUndefined();
    expect(refusalOf(`${exact}z`)?.message).toContain("4097 bytes");
    expect(refusalOf("€".repeat(1366))?.message).toContain("4098 bytes");
  });

  it("keeps encoded and look-alike dots as plain names", () => {
    expect(checkWorkspacePath("%2e%2e/x")).toEqual(["%2e%2e", "x"]);
    expect(checkWorkspacePath("%2E%2E%2Fetc")).toEqual(["%2E%2E%2Fetc"]);
    expect(checkWorkspacePath("\uff0e\uff0e/x")).toEqual(["．．", "x"]);
    expect(checkWorkspacePath("\u2024\u2024/x")).toEqual(["․․", "x"]);
    expect(checkWorkspacePath("file:..")).toEqual(["file:.."]);
  });

  it("does not normalize Unicode: composed and decomposed names stay distinct", () => {
    expect(checkWorkspacePath("\u00e9")).toEqual(["\u00e9"]);
    expect(checkWorkspacePath("e\u0301")).toEqual(["e\u0301"]);
  });

  it("quotes the path in messages with control characters visible, cut when long", () => {
    expect(refusalOf("a\u0007b")?.message).toContain('"a\\u0007b"');
    const long = refusalOf(`${"q".repeat(5000)}\\`)?.message ?? "";
    expect(long.length).toBeLessThan(400);
    expect(long).toContain("…");
  });

  it("has a boolean form for paths built from directory entries", () => {
    expect(isWorkspacePath("a/b")).toBe(true);
    expect(isWorkspacePath(".")).toBe(true);
    expect(isWorkspacePath("a/../b")).toBe(false);
    expect(isWorkspacePath("a\\b")).toBe(false);
    expect(isWorkspacePath(7)).toBe(false);
  });
});
