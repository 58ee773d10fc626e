/**
 * The published OpenAPI document: well-formed (every $ref resolves, every
 * operation has a response schema), binds the documented paths for each
 * version, and the app's real answers conform to it (checked by an
 * independent validator, unknown properties counted as errors).
 */
import { describe, expect, it } from "vitest";
import { createFixture } from "./fixture.ts";
import { check, responseSchema, resolve, type Doc } from "./openapi-check.ts";

async function doc(): Promise<{ fx: Awaited<ReturnType<typeof createFixture>>; doc: Doc }> {
  const fx = await createFixture();
  const res = await fx.app.request("/openapi/v3");
  expect(res.status).toBe(200);
  return { fx, doc: (await res.json()) as Doc };
}

describe("openapi document", () => {
  it("resolves every $ref and names components as slurmrestd does", async () => {
    const { doc: d } = await doc();
    const refs = JSON.stringify(d).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(50);
    for (const r of refs) expect(() => resolve(d, { $ref: JSON.parse(r) })).not.toThrow();
    for (const name of ["v0.0.45_job_info", "v0.0.42_job_desc_msg", "v0.0.44_openapi_meta", "v0.0.43_uint32_no_val_struct", "v0.0.45_openapi_job_submit_response"]) {
      expect(d.components.schemas[name]).toBeDefined();
    }
  });

  it("binds the core paths for every version", async () => {
    const { doc: d } = await doc();
    for (const v of ["v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"]) {
      expect(Object.keys(d.paths[`/slurm/${v}/job/{job_id}`] ?? {}).sort()).toEqual(["delete", "get", "post"]);
      for (const p of ["ping/", "diag/", "jobs/", "job/submit", "nodes/", "partitions/", "licenses/", "reservations/", "shares"]) expect(d.paths[`/slurm/${v}/${p}`]).toBeDefined();
      for (const p of ["jobs/", "job/{job_id}", "accounts/", "users/", "qos/", "associations/", "clusters/", "tres/", "config", "diag/"]) expect(d.paths[`/slurmdb/${v}/${p}`]).toBeDefined();
    }
  });

  it("describes what the app really answers", async () => {
    const { fx, doc: d } = await doc();
    await fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\n", job: { current_working_directory: "/tmp" } } });
    for (const [path, api] of [
      ["/slurm/v0.0.45/jobs/", "/slurm/v0.0.45/jobs/"], ["/slurm/v0.0.42/job/100", "/slurm/v0.0.42/job/{job_id}"],
      ["/slurm/v0.0.45/ping/", "/slurm/v0.0.45/ping/"], ["/slurm/v0.0.45/diag/", "/slurm/v0.0.45/diag/"],
      ["/slurm/v0.0.45/nodes/", "/slurm/v0.0.45/nodes/"], ["/slurm/v0.0.45/partitions/", "/slurm/v0.0.45/partitions/"],
      ["/slurmdb/v0.0.45/jobs/", "/slurmdb/v0.0.45/jobs/"], ["/slurmdb/v0.0.45/config", "/slurmdb/v0.0.45/config"],
      ["/slurmdb/v0.0.43/users/", "/slurmdb/v0.0.43/users/"], ["/slurm/v0.0.45/shares", "/slurm/v0.0.45/shares"],
    ] as const) {
      const r = await fx.request("GET", path, { user: "alice" });
      expect(r.status, path).toBe(200);
      expect(check(d, responseSchema(d, api, "get"), r.json), path).toEqual([]);
    }
  });
});

describe("per-version adapter", () => {
  it("leaves out of v0.0.42 what its data_parser does not have, in the document and in answers", async () => {
    const { fx, doc: d } = await doc();
    const props = (v: string) => Object.keys((d.components.schemas[`${v}_job_info`] as { properties: object }).properties);
    expect(props("v0.0.42")).not.toContain("stdout_expanded");
    expect(props("v0.0.45")).toContain("stdout_expanded");
    expect(props("v0.0.42")).toContain("required_switches");
    await fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\n", job: { current_working_directory: "/tmp" } } });
    const old = await fx.request("GET", "/slurm/v0.0.42/jobs/", { user: "alice" });
    const recent = await fx.request("GET", "/slurm/v0.0.45/jobs/", { user: "alice" });
    expect((old.json.jobs as Record<string, unknown>[])[0]).not.toHaveProperty("stdout_expanded");
    expect((recent.json.jobs as Record<string, unknown>[])[0]).toHaveProperty("stdout_expanded");
    expect(check(d, responseSchema(d, "/slurm/v0.0.42/jobs/", "get"), old.json)).toEqual([]);
  });
});
