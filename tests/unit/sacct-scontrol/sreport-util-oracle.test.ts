/**
 * `sreport cluster utilization` against hours the oracle rolled up on 2026-12-05
 * (tests/fixtures/sreport/util-HHMM, recorded by record-util.sh: the command, stdout, stderr,
 * exit status; the hour's `sacct -a -X -P` is the last file). The oracle's cluster registered
 * at 06:52:38 (n[1-4], 4 CPUs and 4000 MB each, 8 GPUs on n3 and n4). Spur's sreport, given
 * the same job records and node times, must print the same bytes: format= (every field, widths,
 * unknown words), and the -P/-p/-n layouts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sreportMain } from "../../../src/cli/sreport.ts";
import { fakePort, makeJob, makeNode } from "./helpers.ts";
import type { Plain } from "../../../src/lib/plain.ts";
import type { ReservationInfo } from "../../../src/net/gen/spur/v1/controller_pb.ts";

const ROOT = join(__dirname, "../../fixtures/sreport");

interface Recorded {
  file: string;
  command: string;
  argv: string[];
  stdout: string;
  stderr: string;
  exitCode: number;
}

function recorded(dir: string, file: string): Recorded {
  const text = readFileSync(join(ROOT, dir, file), "utf8");
  const first = text.indexOf("\n");
  const command = text.slice(0, first).replace("### command: ", "");
  const [stdout = "", rest = ""] = text.slice(first + 1).split("### stderr\n");
  const [stderr = "", rc = "0"] = rest.split("### rc: ");
  return { file, command, argv: command.split(/\s+/).slice(1), stdout, stderr, exitCode: Number(rc) };
}

const epoch = (s: string): number => (s === "Unknown" || s === "None" || s === "" ? 0 : Date.parse(`${s}Z`) / 1000);
const REGISTERED = Date.UTC(2026, 11, 5, 6, 52, 38) / 1000;

interface World {
  reservations: Plain<ReservationInfo>[];
  downSpans: { node: string; start: number; end: number; state: string; reason: string }[];
}

/** One recorded hour: its reports, and the world Spur is given for it. */
function hour(dir: string) {
  const files = readdirSync(join(ROOT, dir)).filter((f) => /^\d+\.txt$/.test(f)).sort().map((f) => recorded(dir, f));
  const sacct = files.find((f) => f.command.startsWith("sacct"));
  const jobs = (sacct?.stdout ?? "").trim().split("\n").slice(1).filter((l) => l !== "").map((line) => {
    const [id, user, account, partition, cpus, tres, submit, eligible, start, end, , state, resv, wckey] = line.split("|");
    return makeJob({
      jobId: Number(id), user, account, partition, numCpus: Number(cpus), tresAlloc: tres ?? "", submitTime: epoch(submit ?? ""),
      eligibleTime: epoch(eligible ?? ""), startTime: epoch(start ?? ""), endTime: epoch(end ?? ""), state: (state ?? "").split(" ")[0],
      reservation: resv ?? "", wckey: wckey ?? "",
    });
  });
  // world.json: what else the controller knew of that hour (its reservations, deleted ones too,
  // and the nodes' spans DOWN or drained, from `scontrol show res` and `sacctmgr show event`)
  const worldFile = join(ROOT, dir, "world.json");
  const world = existsSync(worldFile)
    ? (JSON.parse(readFileSync(worldFile, "utf8")) as World)
    : { reservations: [], downSpans: [] };
  const port = () => {
    const nodes = [1, 2, 3, 4].map((i) =>
      makeNode({ name: `n${i}`, cpus: 4, realMemoryMib: 4000, gpuCount: i > 2 ? 8 : 0, firstRegisteredTime: REGISTERED }));
    const { port: p } = fakePort({ jobs, nodes, now: Date.UTC(2026, 11, 5, 8, 30) / 1000, downSpans: world.downSpans });
    p.ctl.listReservations = async () => ({ reservations: world.reservations, now: 0 });
    return p;
  };
  return { cases: files.filter((f) => f.command.startsWith("sreport")), port };
}

describe.each(["util-2020", "util-0600", "util-0700"])("sreport cluster utilization prints what the oracle printed (%s)", (dir) => {
  const { cases, port } = hour(dir);
  it.each(cases.map((c) => [`${c.file}: ${c.command.replace(/start=\S+ end=\S+ /, "")}`, c] as const))("%s", async (_name, c) => {
    expect(await sreportMain(c.argv, port())).toEqual({ stdout: c.stdout, stderr: c.stderr, exitCode: c.exitCode });
  });
});
