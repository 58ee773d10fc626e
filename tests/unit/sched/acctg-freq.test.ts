/**
 * --acctg-freq's task interval at submission (oracle 22.05, JobAcctGatherFrequency=30, DefMemPerCPU
 * set): task=10, task=30, energy=0, network=100 pass; task=31, task=60, 60, 0, task=0 are refused
 * with "Invalid accounting frequency requested"; with --mem=0 (no memory limit) task=60 passes.
 */
import { describe, expect, it } from "vitest";
import { validateSubmit } from "../../../src/sched/model/apply-submit.ts";
import { CONF, ROOT, cluster, spec, submit } from "./builders.ts";

const REFUSED = "Invalid accounting frequency requested";

describe("--acctg-freq at submission", () => {
  it.each([
    ["task=10", ""], ["task=30", ""], ["energy=0", ""], ["network=100", ""], ["energy=0,task=20", ""],
    ["task=31", REFUSED], ["task=60", REFUSED], ["60", REFUSED], ["0", REFUSED], ["task=0", REFUSED], ["energy=0,task=60", REFUSED],
  ])("%s with a memory limit: %s", (acctgFreq, error) => {
    expect(cluster().run(submit(spec({ acctgFreq, hold: true }))).error).toBe(error);
  });

  it("is not checked without a memory limit (--mem=0), and follows JobAcctGatherFrequency", () => {
    expect(cluster().run(submit(spec({ acctgFreq: "task=60", memPerNodeMib: 0 }))).error).toBe("");
    expect(cluster(`${CONF}\nJobAcctGatherFrequency=task=60\n`).run(submit(spec({ acctgFreq: "task=60" }))).error).toBe("");
    expect(cluster(`${CONF}\nJobAcctGatherFrequency=10\n`).run(submit(spec({ acctgFreq: "task=20" }))).error).toBe(REFUSED);
  });
});

describe("--acctg-freq under --test-only (oracle 22.05, differential seed 13717)", () => {
  it.each([
    ["energy=0", ""], ["task=30", ""], ["30", ""],
    ["energy=0,task=60", REFUSED], ["task=60", REFUSED], ["task=0", REFUSED], ["0", REFUSED], ["task=31", REFUSED],
  ])("%s: %s", (acctgFreq, error) => {
    const r = validateSubmit(cluster().state, spec({ acctgFreq }), ROOT, { testOnly: true });
    expect(typeof r === "string" ? r : "").toBe(error);
  });
});
