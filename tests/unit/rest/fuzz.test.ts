/**
 * Fuzz/property suite over the API, generated from the OpenAPI document: for
 * every operation with a request body, seeded random bodies (valid-shaped and
 * mutated: wrong types, unknown keys, deep nesting, long strings) must get a
 * 2xx or 4xx with a well-formed envelope, never a 5xx or a throw. Bounded by
 * FUZZ_CASES (default 400). SEED=n replays a run (default fixed; the seed is printed on failure).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createFixture } from "./fixture.ts";
import { check, createRng, generate, mutate, type Doc } from "./openapi-check.ts";

// Fixed unless SEED is given (a run replays bit for bit); a failing test prints how to replay it.
const SEED = Number(process.env.SEED ?? 1);
const CASES = Number(process.env.FUZZ_CASES ?? 400);

/** A few of a generated body's job fields, so that some submissions are valid. */
function pickFields(body: unknown, rng: ReturnType<typeof createRng>): Record<string, unknown> {
  const job = (body as { job?: Record<string, unknown> } | null)?.job ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(job)) if (rng.int(4) === 0 && k !== "current_working_directory") out[k] = v;
  return out;
}

describe(`REST fuzz (SEED=${SEED})`, () => {
  beforeEach(({ onTestFailed }) => onTestFailed(() => console.error(`replay: SEED=${SEED} bun --bun vitest run tests/unit/rest/fuzz.test.ts`)));
  it("never answers 5xx and always with a conforming envelope", async () => {
    const fx = await createFixture();
    const doc = (await (await fx.app.request("/openapi/v3")).json()) as Doc;
    const rng = createRng(SEED);
    const ops: { path: string; method: string; schema: Record<string, unknown> }[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const body = (op as { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }).requestBody;
        const schema = body?.content["application/json"]?.schema;
        if (schema !== undefined) ops.push({ path, method, schema });
      }
    }
    expect(ops.length).toBeGreaterThan(8);
    const envelope = { $ref: "#/components/schemas/v0.0.45_openapi_resp" };
    const token = await fx.token("alice");
    const statuses = new Map<number, number>();
    for (let i = 0; i < CASES; i++) {
      const op = rng.pick(ops);
      let body = generate(doc, op.schema, rng);
      const r = rng.int(3);
      if (r === 0) body = mutate(body, rng);
      else if (r === 1 && op.path.endsWith("/job/submit")) body = { script: "#!/bin/sh\n", job: { current_working_directory: "/tmp", ...pickFields(body, rng) } };
      const url = op.path.replace("{job_id}", rng.pick(["1", "100", "abc", "1_2"])).replace("{node_name}", "n1");
      const raw = rng.int(20) === 0 ? "{\"job\": " : JSON.stringify(body);
      const res = await fx.app.request(url, { method: op.method.toUpperCase(), headers: { "x-slurm-user-token": token, "content-type": "application/json" }, body: raw });
      const where = `SEED=${SEED} case ${i}: ${op.method} ${url} ${raw.slice(0, 300)}`;
      expect(res.status, where).toBeLessThan(500);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const json = (await res.json()) as Record<string, unknown>;
      const { meta, errors, warnings } = json;
      expect(check(doc, envelope, { meta, errors, warnings }), where).toEqual([]);
      if (res.status >= 400) expect((errors as unknown[]).length, where).toBeGreaterThan(0);
    }
    // The generator must reach the handlers, not only the validator.
    if (CASES >= 200) expect([...statuses.keys()].sort(), JSON.stringify([...statuses])).toEqual(expect.arrayContaining([200, 400]));
    console.log(JSON.stringify({ seed: SEED, cases: CASES, statuses: Object.fromEntries(statuses) }));
  });
});
