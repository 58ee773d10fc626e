/**
 * The /ui page of spurrestd on the in-process app (tests/unit/rest/fixture): the page and its
 * code are served without any outside origin, `?token=` becomes an HttpOnly cookie, the data
 * calls take the API's authentication, and a job's script goes to its owner and operators only.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createFixture, NOW_SEC, type Fixture } from "../fixture.ts";
import { emptyJobInfo } from "../../../../src/sched/model/records.ts";
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from "../../../../src/net/rest/ui/assets.ts";

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
  fx.jobs.push({ ...emptyJobInfo(), jobId: 41, uid: 1001, user: "alice", state: "PENDING", reason: "Resources", submitTime: NOW_SEC, priority: 5 });
});

const get = (path: string, headers: Record<string, string> = {}) => fx.app.request(path, { headers });

describe("the page", () => {
  it("is served with a policy that allows nothing from another origin", async () => {
    const res = await get("/ui");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(await res.text()).toBe(PAGE_HTML);
    expect(await (await get("/ui/page.js")).text()).toBe(PAGE_JS);
    expect((await get("/ui/page.css")).headers.get("content-type")).toContain("text/css");
  });

  it("names no outside address in its files (the SVG namespace is a name, not a fetch)", () => {
    for (const text of [PAGE_HTML, PAGE_CSS, PAGE_JS]) {
      const urls = text.match(/\b(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*/gi) ?? [];
      expect(urls.filter((u) => u !== "http://www.w3.org/2000/svg")).toEqual([]);
    }
    expect(PAGE_HTML).toContain('src="/ui/page.js"');
  });
});

describe("authentication", () => {
  it("turns ?token= into an HttpOnly SameSite cookie and drops it from the address", async () => {
    const res = await get(`/ui?token=${await fx.token("alice")}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/ui");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^spur_ui_token=[^;]+; Path=\/ui; HttpOnly; SameSite=Strict$/);
    const view = await get("/ui/api/view", { cookie: cookie.split(";")[0] ?? "" });
    expect(view.status).toBe(200);
    expect(((await view.json()) as { user: string }).user).toBe("alice");
  });

  it("refuses a bad token and a call without any", async () => {
    expect((await get("/ui?token=not.a.token")).status).toBe(401);
    const none = await get("/ui/api/view");
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: string }).error).toContain("Authentication required");
  });

  it("answers an unchanged view with 304 so the page neither downloads nor parses it again", async () => {
    const token = await fx.token("alice");
    const first = await get("/ui/api/view", { "x-slurm-user-token": token });
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await get("/ui/api/view", { "x-slurm-user-token": token, "if-none-match": etag })).status).toBe(304);
    expect((await get("/ui/api/view", { "x-slurm-user-token": token, "if-none-match": '"other"' })).status).toBe(200);
  });

  it("takes the Unix-socket peer as the caller when no token is sent (rest_auth/local)", async () => {
    const local = await createFixture({ localPeer: "alice" });
    local.jobs.push(...fx.jobs);
    const view = await local.app.request("/ui/api/view");
    expect(view.status).toBe(200);
    expect(((await view.json()) as { user: string }).user).toBe("alice");
    const job = (await (await local.app.request("/ui/api/job/41")).json()) as { script?: string };
    expect(job.script).toContain("script of job 41");
  });

  it("counts the page's calls against the API's per-user rate limit", async () => {
    const limited = await createFixture({ perSec: 1 });
    const token = await limited.token("alice");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited.app.request("/ui/api/view", { headers: { "x-slurm-user-token": token } })).status);
    expect(statuses).toEqual([200, 429, 429]);
  });

  it("takes the API's header token too", async () => {
    const token = await fx.token("bob");
    const view = (await (await get("/ui/api/view", { "x-slurm-user-token": token })).json()) as { user: string; jobs?: unknown };
    expect(view.user).toBe("bob");
    // the queue is the view's second part, fetched after the grid is drawn
    expect(view.jobs).toBeUndefined();
    const queue = (await (await get("/ui/api/jobs", { "x-slurm-user-token": token })).json()) as { jobs: unknown[][]; strings: string[] };
    expect(queue.strings[queue.jobs[0]?.[6] as number]).toBe("Resources");
  });
});

describe("the job view", () => {
  const job = async (user: string) => (await get("/ui/api/job/41", { "x-slurm-user-token": await fx.token(user) })).json() as Promise<Record<string, unknown>>;

  it("shows the script to the owner and an operator, and says why to anyone else", async () => {
    expect((await job("alice")).script).toBe("#!/bin/sh\n# script of job 41\n");
    expect((await job("op")).script).toBe("#!/bin/sh\n# script of job 41\n");
    const bob = await job("bob");
    expect(bob.script).toBeUndefined();
    expect(bob.scriptRefused).toBe("Access/permission denied");
    expect(bob.fields).toContainEqual(["Reason", "Resources"]);
    expect([bob.user, bob.cluster]).toEqual(["bob", "spur"]);
  });

  it("answers 404 for an unknown job and 400 for a malformed id", async () => {
    const token = await fx.token("alice");
    expect((await get("/ui/api/job/999", { "x-slurm-user-token": token })).status).toBe(404);
    expect((await get("/ui/api/job/1;x", { "x-slurm-user-token": token })).status).toBe(400);
  });
});
