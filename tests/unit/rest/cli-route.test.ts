/**
 * `sshare --json` and `sdiag --json` print what GET /slurm/v0.0.45/shares and /diag/ serve
 * (one serializer per thing, src/net/rest/cli-route.ts): they parse with the published
 * schemas, and meta.command echoes the invocation.
 */
import { describe, expect, it } from "vitest";
import { sshareMain } from "../../../src/cli/sshare.ts";
import { sdiagMain } from "../../../src/cli/sdiag.ts";
import { fakePort } from "../sacct-scontrol/helpers.ts";
import { busyJobs } from "../sacct-scontrol/busy-fixture.ts";
import { createFixture } from "./fixture.ts";
import { check, responseSchema, type Doc } from "./openapi-check.ts";

const row = (depth: number, account: string, user: string, assocId: number) => ({
  assocId, account, user, partition: "", depth, rawShares: 1, normShares: 0.5, rawUsage: 10, normUsage: 0.1, effectvUsage: 0.1,
  levelFs: 1.5, fairshare: user === "" ? 0 : 0.75, grpTresMins: "", tresRunMins: "",
});

describe("--json of sshare and sdiag", () => {
  it("parse with the published schemas; the fair-share tree keeps parents and types", async () => {
    const doc = (await (await (await createFixture()).app.request("/openapi/v3")).json()) as Doc;
    const { port } = fakePort({ jobs: busyJobs(), now: 1796214967 });
    const rows = [row(0, "root", "", 1), row(1, "physics", "", 2), row(2, "physics", "alice", 3)];
    const withShares = { ...port, ctl: { ...port.ctl, getShares: async () => ({ rows, cluster: "oracle" }) } };
    const s = await sshareMain(["-a", "--json"], withShares);
    expect(s.exitCode, s.stderr).toBe(0);
    const shares = JSON.parse(s.stdout) as { shares: { shares: { name: string; parent: string; type: string[] }[] }; meta: { command: string[] } };
    expect(check(doc, responseSchema(doc, "/slurm/v0.0.45/shares", "get"), shares)).toEqual([]);
    expect(shares.shares.shares.map((x) => [x.name, x.parent, x.type[0]])).toEqual([["root", "", "ASSOCIATION"], ["physics", "root", "ASSOCIATION"], ["alice", "physics", "USER"]]);
    expect(shares.meta.command).toEqual(["sshare", "-a", "--json"]);
    const d = await sdiagMain(["--json"], port);
    expect(d.exitCode, d.stderr).toBe(0);
    expect(check(doc, responseSchema(doc, "/slurm/v0.0.45/diag/", "get"), JSON.parse(d.stdout))).toEqual([]);
  });
});
