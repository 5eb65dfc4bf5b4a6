import { describe, expect, it } from "vitest";
import type { Session } from "../session/session.js";
import { OpenSessions } from "./open-sessions.js";

const session = (id: string) => ({ id }) as Session;

describe("OpenSessions", () => {
  it("finds a Session by id until it is removed, and answers for no id two Sessions share", () => {
    const open = new OpenSessions();
    const a = session("a");
    const twin = session("a");
    expect(open.get("a")).toBeUndefined();
    open.add(a);
    expect(open.get("a")).toBe(a);
    open.add(twin);
    expect(open.get("a")).toBeUndefined();
    open.remove(a);
    expect(open.get("a")).toBe(twin);
    open.remove(twin);
    open.remove(twin);
    expect(open.get("a")).toBeUndefined();
  });
});
