/**
 * `scontrol --json show steps` / `scontrol show step --json`: data_parser's
 * openapi_step_info_msg, which parses with the component /openapi/v3 publishes
 * for every version and with the schema validator, and holds the running steps the
 * text form prints (selection by job and step, the errors entry for an unknown id).
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { validate } from "../../../src/net/rest/schema.ts";
import { StepInfoResp } from "../../../src/net/rest/cli-steps.ts";
import { VERSIONS } from "../../../src/net/rest/versions.ts";
import { at, fakePort, makeJob, makeStep } from "../sacct-scontrol/helpers.ts";
import { createFixture } from "./fixture.ts";
import { check, type Doc } from "./openapi-check.ts";

const NOW = at("12:36:08");
const job = makeJob({
  jobId: 30, name: "run1", state: "RUNNING", partition: "debug", nodelist: "n1", timeLimitMin: 30, startTime: NOW - 20,
  steps: [
    makeStep({
      jobId: 30, stepId: 0, name: "sleep", state: "RUNNING", nodelist: "n1", ntasks: 1, cpus: 2, startTime: NOW - 10,
      tres: "cpu=2,mem=512M,node=1", srunHost: "vm", srunPid: 4242, distribution: "Cyclic",
      alloc: [{ node: "n1", cpus: 2, memMib: 512, gpuIndices: [], tasks: 1 }],
    }),
    makeStep({ jobId: 30, stepId: 1, state: "COMPLETED" }),
  ],
});

interface StepsDoc {
  steps: { id: string; name: string; nodes: string; number_cpus: number; number_tasks: number; partition: string; state: string[]; srun: { host: string; pid: number }; task: { distribution: string }; time: { limit: { number: number }; running: { number: number } }; tres: { allocation: string } }[];
  errors: { error: string; error_number: number }[];
  meta: { plugin: { data_parser: string }; command: string[] };
}

const run = (argv: string[]) => scontrolMain(argv, fakePort({ jobs: [job], now: NOW }).port);

describe("scontrol --json show steps", () => {
  it("parses with <version>_openapi_step_info_msg of /openapi/v3 and the schema validator, in every version", async () => {
    const fx = await createFixture();
    const d = (await (await fx.app.request("/openapi/v3")).json()) as Doc;
    for (const v of VERSIONS) {
      const ref = { $ref: `#/components/schemas/${v}_openapi_step_info_msg` };
      expect(d.components.schemas[`${v}_openapi_step_info_msg`], v).toBeDefined();
      for (const argv of [[`--json=${v}`, "show", "steps"], ["show", "step", "30.0", `--json=${v}`]]) {
        const r = await run(argv);
        expect(r.exitCode, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as StepsDoc;
        expect(out.meta.plugin.data_parser).toBe(`data_parser/${v}`);
        expect(out.meta.command).toEqual(["scontrol", ...argv]);
        expect(check(d, ref, out)).toEqual([]);
        expect(validate(StepInfoResp.node, out, { rejectUnknown: true, version: Number(v.slice(5)) })).toEqual([]);
      }
    }
  });

  it("holds the running steps the text form prints", async () => {
    const out = JSON.parse((await run(["--json", "show", "steps", "30"])).stdout) as StepsDoc;
    expect(out.steps).toHaveLength(1);
    const s = out.steps[0];
    expect([s?.id, s?.name, s?.nodes, s?.number_cpus, s?.number_tasks, s?.partition, s?.state]).toEqual(["30.0", "sleep", "n1", 2, 1, "debug", ["RUNNING"]]);
    expect([s?.srun, s?.task.distribution, s?.time.limit.number, s?.time.running.number, s?.tres.allocation]).toEqual([{ host: "vm", pid: 4242 }, "Cyclic", 30, 10, "cpu=2,mem=512M,node=1"]);
    expect(JSON.parse((await run(["--json", "show", "step", "30.1"])).stdout).steps).toEqual([]);
  });

  it("an unknown job or a bad id is an errors entry with exit 1; an unknown data_parser is refused", async () => {
    for (const id of ["99", "x"]) {
      const r = await run(["--json", "show", "step", id]);
      expect(r.exitCode).toBe(1);
      expect((JSON.parse(r.stdout) as StepsDoc).errors[0]).toMatchObject({ error: "Invalid job id specified", error_number: 2017 });
    }
    const bad = await run(["--json=v0.0.1", "show", "steps"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/^scontrol: error: Unable to find data_parser plugin for v0\.0\.1 \(available: /);
  });
});
