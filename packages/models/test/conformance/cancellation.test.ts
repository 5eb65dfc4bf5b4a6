// Conformance, cancellation: aborting before the answer's first byte and in the middle of its
// stream ends the call with the abort's reason, closes the request the server saw, and leaves
// no socket or timer behind. Every adapter (drivers/index.ts) runs both.
import type { ModelStreamEvent } from "@castellan/harness";
import { afterEach, describe, expect } from "vitest";
import { closed } from "../support/connection.ts";
import { userRequest } from "../support/request.ts";
import { activeResources, expectNoLeak, settle } from "../support/resources.ts";
import { drivers } from "./drivers/index.ts";
import { type ScenarioFixture, serve, stream } from "./support/fixture.ts";
import { assertNoKey } from "./support/no-key.ts";
import { scenario } from "./support/scenario.ts";

let fixture: ScenarioFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(drivers.map((driver) => [driver.name, driver] as const))("%s", (_name, driver) => {
  scenario("abort before the first byte", async () => {
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let serverClosed: Promise<void> | undefined;
    fixture = await serve(driver, (_request, response) => {
      serverClosed = closed(response);
      arrived();
      // Never answers: only the client going away ends this request.
      return serverClosed;
    });
    const before = activeResources();
    const model = driver.bind(fixture.url, { maxRetries: 2 });
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const collecting = (async () => {
      const events: ModelStreamEvent[] = [];
      for await (const event of model.stream(userRequest("Hi"), { signal: controller.signal })) events.push(event);
      return events;
    })();
    await requested;
    controller.abort(reason);
    expect(await collecting).toEqual([{ type: "error", error: reason }]);
    await serverClosed;
    await settle();
    expectNoLeak(before);
    expect(fixture.inference()).toHaveLength(1);
  });

  scenario("abort mid-stream", async () => {
    let serverClosed: Promise<void> | undefined;
    const answer = stream(driver, driver.partial("first"), { hold: true });
    fixture = await serve(driver, (request, response) => {
      serverClosed = closed(response);
      return answer(request, response);
    });
    const before = activeResources();
    const model = driver.bind(fixture.url, { maxRetries: 2 });
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream(userRequest("Hi"), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort(reason);
    }
    expect(events.filter((event) => event.type !== "content")).toEqual([
      { type: "text-delta", text: "first" },
      { type: "error", error: reason },
    ]);
    assertNoKey(events);
    await serverClosed;
    await settle();
    expectNoLeak(before);
    expect(fixture.inference()).toHaveLength(1);
  });
});
