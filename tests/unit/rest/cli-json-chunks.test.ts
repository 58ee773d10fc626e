/**
 * `squeue --json=v0.0.4x` is written job by job (cli-json.ts squeueJsonV4Chunks over
 * lib/json-pretty.ts): its chunks join to exactly the text of the document built whole,
 * pruned for the version and stringified at once (what squeue printed before), for generated
 * jobs in every served version; and squeue hands the chunks to a port that writes as it goes.
 * SEED=n replays a run; the seed is in the title.
 */
import { describe, expect, it } from "vitest";
import { jobInfo } from "../../../src/net/rest/serialize-job.ts";
import { JobInfoResp } from "../../../src/net/rest/schemas-job.ts";
import { pruneForVersion } from "../../../src/net/rest/schema.ts";
import { squeueJsonV4Chunks } from "../../../src/net/rest/cli-json.ts";
import { metaFor, versionNumber, type Version } from "../../../src/net/rest/versions.ts";
import { value } from "../../../src/net/rest/schemas-common.ts";
import { squeueMain } from "../../../src/cli/squeue.ts";
import type { Job } from "../../../src/compat/format/job-values.ts";
import { fakePort } from "../squeue-sinfo/golden.ts";
import { createRng } from "./rng.ts";
import { randomJob } from "./random-job.ts";

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);
const VERSIONS: Version[] = ["v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"];
const who = { user: "alice", group: "staff", argv: ["--json"], command: "squeue" };

/** squeue --json as it was written before: the whole document, then JSON.stringify(doc, null, 2). */
function wholeText(version: Version, jobs: readonly Job[], nowSec: number): string {
  const doc = {
    jobs: jobs.map((j) => jobInfo(j, "spur")), last_backfill: value(0), last_update: value(Math.floor(nowSec)),
    meta: { ...metaFor({ version, api: "slurmctld", user: who.user, group: who.group, source: "", cluster: "spur" }), command: [who.command, ...who.argv] },
    errors: [], warnings: [],
  };
  pruneForVersion(JobInfoResp.node, doc, versionNumber(version));
  return `${JSON.stringify(doc, null, 2)}\n`;
}

describe(`squeue --json in chunks (SEED=${SEED})`, () => {
  it("joins to the whole document's text for generated jobs, in every version", () => {
    const rng = createRng(SEED);
    for (const n of [0, 1, 7, 600]) {
      const jobs = Array.from({ length: n }, (_, i) => randomJob(rng, i + 1));
      for (const version of VERSIONS) {
        const chunks = [...squeueJsonV4Chunks(version, jobs, "spur", 1796214967.5, who)];
        expect(chunks.join(""), `SEED=${SEED} ${n} jobs ${version}`).toBe(wholeText(version, jobs, 1796214967.5));
        if (n === 600) expect(chunks.length, "600 random jobs span more than one chunk").toBeGreaterThan(2);
      }
    }
  });

  it("squeue gives the chunks to a port that writes as it goes, the same text as whole", async () => {
    const rng = createRng(SEED + 1);
    const jobs = Array.from({ length: 50 }, (_, i) => randomJob(rng, i + 1));
    const whole = await squeueMain(["--json"], fakePort({ jobs, now: 1796214967 }));
    const streamed = await squeueMain(["--json"], { ...fakePort({ jobs, now: 1796214967 }), streamsOutput: true });
    expect(streamed.exitCode).toBe(0);
    expect(streamed.stdoutMore, "a streaming port gets chunks").toBeDefined();
    expect(streamed.stdout + [...(streamed.stdoutMore ?? [])].join("")).toBe(whole.stdout);
    expect(whole.stdoutMore).toBeUndefined();
    expect(JSON.parse(whole.stdout).jobs).toHaveLength(50);
  });
});
