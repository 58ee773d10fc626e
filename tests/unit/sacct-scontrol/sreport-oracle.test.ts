/**
 * sreport against the oracle's rolled-up hour (issue 20): on 2026-12-04 the srp20 workload
 * (sreport-fixture.ts) ran on the oracle beside other sessions' jobs; after slurmdbd's hourly
 * rollup every report below was recorded for 17:00-18:00 (tests/fixtures/sreport/hour/NNN.txt:
 * the command, its stdout, stderr and exit status), with `sacct -a -X -P` of every job of that
 * time (hour/sacct.txt). Spur's sreport, given those job records, the account tree and the two
 * reservations, must print the same bytes. The oracle's cluster registered at 17:07:29: its
 * nodes' time (Reported, and what percentages are of) counts from then, as Spur counts each
 * node's from the controller's first registration of it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sreportMain } from "../../../src/cli/sreport.ts";
import { fakePort, makeJob, makeNode } from "./helpers.ts";
import { SRP20_NOW, SRP20_RESVS, SRP20_TREE } from "./sreport-fixture.ts";

const DIR = join(__dirname, "../../fixtures/sreport/hour");

interface Recorded {
  file: string;
  argv: string[];
  stdout: string;
  stderr: string;
  exitCode: number;
}

function recorded(file: string): Recorded {
  const text = readFileSync(join(DIR, file), "utf8");
  const first = text.indexOf("\n");
  const command = text.slice(0, first).replace("### command: ", "");
  const [stdout = "", rest = ""] = text.slice(first + 1).split("### stderr\n");
  const [stderr = "", rc = "0"] = rest.split("### rc: ");
  return { file, argv: command.split(/\s+/).slice(1), stdout, stderr, exitCode: Number(rc) };
}

const epoch = (s: string): number => (s === "Unknown" || s === "None" || s === "" ? 0 : Date.parse(`${s}Z`) / 1000);

/** Every job of the hour as sacct printed it. */
const JOBS = recorded("sacct.txt").stdout.trim().split("\n").slice(1).map((line) => {
  const [id, user, account, partition, cpus, tres, submit, eligible, start, end, , state, resv, wckey] = line.split("|");
  return makeJob({
    jobId: Number(id), user, account, partition, numCpus: Number(cpus), tresAlloc: tres ?? "", submitTime: epoch(submit ?? ""),
    eligibleTime: epoch(eligible ?? ""), startTime: epoch(start ?? ""), endTime: epoch(end ?? ""), state: (state ?? "").split(" ")[0],
    reservation: resv ?? "", wckey: wckey ?? "",
  });
});

/** The oracle's shape: n[1-4] with 4 CPUs and 4000 MB each, 8 GPUs on n3 and n4, registered at 17:07:29. */
const REGISTERED = Date.UTC(2026, 11, 4, 17, 7, 29) / 1000;
function port() {
  const nodes = [1, 2, 3, 4].map((i) =>
    makeNode({ name: `n${i}`, cpus: 4, realMemoryMib: 4000, gpuCount: i > 2 ? 8 : 0, firstRegisteredTime: REGISTERED }));
  const { port: p } = fakePort({ jobs: JOBS, nodes, now: SRP20_NOW });
  p.ctl.acctList = async () => ({
    cluster: "oracle",
    rows: SRP20_TREE.map((a) => ({ fields: { id: String(a.id), account: a.account, user: a.user, parentname: a.user === "" ? a.parent : "" } })),
  });
  p.ctl.listReservations = async () => ({ reservations: SRP20_RESVS, now: SRP20_NOW });
  // sreport's Proper Name: the first GECOS field (root's is "root", the test users have none)
  p.readFile = async () => "root:x:0:0:root:/root:/bin/bash\nspurtest:x:1001:1001::/home/spurtest:/bin/sh\n";
  return p;
}

const CASES = readdirSync(DIR).filter((f) => /^\d+\.txt$/.test(f)).sort().map(recorded);

describe("sreport prints what the oracle printed for the same hour", () => {
  it("holds every recorded report", () => {
    expect(CASES.length).toBe(51);
  });

  it.each(CASES.map((c) => [`${c.file}: sreport ${c.argv.join(" ")}`, c] as const))("%s", async (_name, c) => {
    const r = await sreportMain(c.argv, port());
    expect(r).toEqual({ stdout: c.stdout, stderr: c.stderr, exitCode: c.exitCode });
  });
});
