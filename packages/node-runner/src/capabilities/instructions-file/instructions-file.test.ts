import { DeclarationError, defineAgent } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { instructionsFile } from "./instructions-file.js";

const base = "file:///app/prompts/";

describe("instructionsFile declaration", () => {
  it("names the section after the file without its extension, unless name is given", () => {
    const capability = instructionsFile(new URL("review-rules.md", base));
    expect(capability.name).toBe("instructions-file:review-rules");
    expect(capability.instructions.map((section) => [section.name, section.placement])).toEqual([
      ["review-rules", "system"],
    ]);
    expect(instructionsFile(`${base}rules.v2.md`).instructions[0]?.name).toBe("rules.v2");
    expect(instructionsFile(`${base}README`).instructions[0]?.name).toBe("README");
    expect(instructionsFile(`${base}review-rules.md`, { name: "house" }).instructions[0]?.name).toBe("house");
  });

  it("declares one instructions-file resource whose spec is the URL and placement, and the section reads it", () => {
    const capability = instructionsFile(new URL("now.md", base), { placement: "context" });
    expect(capability.resources).toHaveLength(1);
    const [request] = capability.resources;
    expect(request?.binding.name).toBe("instructions-file");
    expect(request?.spec).toEqual({ url: `${base}now.md`, placement: "context" });
    expect(capability.instructions[0]).toMatchObject({ placement: "context", resource: request });
  });

  it.each([
    ["a name derived from a dot file", () => instructionsFile(`${base}.env`), /pass \{ name \}/],
    ["an invalid name", () => instructionsFile(`${base}rules.md`, { name: "bad name" }), /section name "bad name"/],
    ["an empty name", () => instructionsFile(`${base}rules.md`, { name: "" }), /section name ""/],
    ["an http URL", () => instructionsFile("https://example.com/rules.md"), /not a file: URL/],
    ["a relative path", () => instructionsFile("./rules.md"), /not a file: URL/],
    ["a non-URL", () => instructionsFile(42 as never), /not a file: URL/],
    ["a remote file host", () => instructionsFile("file://server/share/rules.md"), /no local file path/],
    ["another placement", () => instructionsFile(`${base}r.md`, { placement: "user" as never }), /placement/],
    ["an unknown option", () => instructionsFile(`${base}r.md`, { placment: "context" } as never), /"placment"/],
    ["options that are not an object", () => instructionsFile(`${base}r.md`, "context" as never), /options/],
  ])("rejects %s at declaration", (_label, declare, message) => {
    expect(declare).toThrow(DeclarationError);
    expect(declare).toThrow(message);
  });

  it("reads nothing: a missing file declares, and an agent using it declares", () => {
    const capability = instructionsFile(new URL("file:///no/such/dir/missing.md"));
    expect(() => defineAgent("app.missing-file", { model: "app/chat", capabilities: [capability] })).not.toThrow();
  });

  it("keeps a copy of the URL: changing the given URL object afterwards changes nothing", () => {
    const url = new URL("rules.md", base);
    const capability = instructionsFile(url);
    url.pathname = "/elsewhere/other.md";
    expect(capability.resources[0]?.spec).toMatchObject({ url: `${base}rules.md` });
    expect(Object.isFrozen(capability.resources[0]?.spec)).toBe(true);
  });
});
