/**
 * `squeue --json=v0.0.4x` and `sacct --json=v0.0.4x` print the documents
 * spurrestd serves, so they parse with the published OpenAPI schemas (the
 * same serializers); a bare --json prints the newest (v0.0.45) as current Slurm does, and
 * --json=v0.0.38 keeps 22.05's text (its own goldens).
 */
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { sacctMain } from "../../../src/cli/sacct.ts";
import { busyJobs } from "../squeue-sinfo/fixtures.ts";
import { fakePort } from "../squeue-sinfo/golden.ts";
import { createFixture } from "./fixture.ts";
import { check, responseSchema, type Doc } from "./openapi-check.ts";

async function doc(): Promise<Doc> {
  const fx = await createFixture();
  return (await (await fx.app.request("/openapi/v3")).json()) as Doc;
}

describe("--json=<data_parser>", () => {
  it("squeue --json=v0.0.45 parses with GET /slurm/v0.0.45/jobs/'s schema", async () => {
    const d = await doc();
    const jobs = busyJobs();
    for (const v of ["v0.0.42", "data_parser/v0.0.45"]) {
      const r = await squeueMain([`--json=${v}`], fakePort({ jobs, now: 1796214967 }));
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { jobs: unknown[]; meta: { plugin: { data_parser: string } } };
      expect(out.jobs).toHaveLength(jobs.length);
      expect(out.meta.plugin.data_parser).toBe(`data_parser/${v.replace("data_parser/", "")}`);
      const ver = v.replace("data_parser/", "");
      expect(check(d, responseSchema(d, `/slurm/${ver}/jobs/`, "get"), out)).toEqual([]);
    }
    const bad = await squeueMain(["--json=v0.0.99"], fakePort({ jobs, now: 1796214967 }));
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("data_parser");
  });

  it("sacct --json=v0.0.45 parses with GET /slurmdb/v0.0.45/jobs/'s schema", async () => {
    const d = await doc();
    const jobs = busyJobs();
    const r = await sacctMain(["--json=v0.0.45", "-a"], fakePort({ jobs, now: 1796214967 }));
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { jobs: unknown[] };
    expect(out.jobs.length).toBeGreaterThan(0);
    expect(check(d, responseSchema(d, "/slurmdb/v0.0.45/jobs/", "get"), out)).toEqual([]);
  });

  it("a bare --json is the newest data_parser (v0.0.45), anywhere on the line, with meta.command echoing the invocation", async () => {
    const d = await doc();
    const jobs = busyJobs();
    for (const argv of [["--json"], ["-t", "all", "--json"], ["--json", "-u", "root"]]) {
      const r = await squeueMain(argv, fakePort({ jobs, now: 1796214967 }));
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { meta: { plugin: { data_parser: string }; command: string[]; slurm: { release: string } } };
      expect(out.meta.plugin.data_parser).toBe("data_parser/v0.0.45");
      expect(out.meta.command).toEqual(["squeue", ...argv]);
      expect(out.meta.slurm.release).toBe("26.05.0");
      expect(check(d, responseSchema(d, "/slurm/v0.0.45/jobs/", "get"), out)).toEqual([]);
    }
    const legacy = JSON.parse((await squeueMain(["--json=v0.0.38"], fakePort({ jobs, now: 1796214967 }))).stdout) as { meta: { plugin: { type: string } } };
    expect(legacy.meta.plugin.type).toBe("openapi/v0.0.38");
  });

  it("sacct: a bare --json is the newest data_parser too, meta.command echoing the invocation; =v0.0.38 keeps 22.05's text", async () => {
    const d = await doc();
    const jobs = busyJobs();
    for (const argv of [["--json"], ["-a", "--json"], ["--json", "-X", "-a"]]) {
      const r = await sacctMain(argv, fakePort({ jobs, now: 1796214967 }));
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { jobs: unknown[]; meta: { plugin: { data_parser: string; accounting_storage: string }; command: string[] } };
      expect(out.meta.plugin.data_parser).toBe("data_parser/v0.0.45");
      expect(out.meta.command).toEqual(["sacct", ...argv]);
      expect(out.jobs.length).toBeGreaterThan(0);
      expect(check(d, responseSchema(d, "/slurmdb/v0.0.45/jobs/", "get"), out)).toEqual([]);
    }
    const legacy = await sacctMain(["--json=v0.0.38", "-a"], fakePort({ jobs, now: 1796214967 }));
    expect((JSON.parse(legacy.stdout) as { meta: { plugin: { type: string } } }).meta.plugin.type).toBe("openapi/dbv0.0.38");
    expect(legacy.stdout.endsWith("}")).toBe(true);
    const bad = await sacctMain(["--json=v0.0.1"], fakePort({ jobs, now: 1796214967 }));
    expect([bad.exitCode, bad.stdout]).toEqual([1, ""]);
    expect(bad.stderr).toMatch(/^sacct: error: Unable to find data_parser plugin for v0\.0\.1 \(available: /);
  });
});
