/**
 * The srp20 workload as the oracle (22.05) recorded it on 2026-12-04 (`sacct -X -P`): nine
 * short `sbatch --wrap "sleep N"` jobs of users spurtest, spurlimit and root in accounts srpa,
 * srpb (both under root) and root, three of them with GPUs, two in reservation srp20-resv2
 * (n2, 2 cores, 17:19:21-17:29:21); srp20-resv (n1, 2 cores, 17:14:54-17:26:54) ran nothing.
 * tests/fixtures/sreport/ holds what sreport printed for the 17:00-18:00 window.
 */
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import type { ReservationInfo } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import { makeJob } from "./helpers.ts";

/** 2026-12-04 hh:mm:ss UTC in epoch seconds. */
export const on4 = (clock: string): number => Date.UTC(2026, 11, 4, ...clock.split(":").map(Number)) / 1000;

const SACCT = `1|spurtest|srpa|debug|2|billing=2,cpu=2,mem=512M,node=1|17:10:43|17:10:43|17:12:43|
2|spurtest|srpb|gpu|1|billing=1,cpu=1,gres/gpu=2,mem=256M,node=1|17:10:43|17:11:29|17:12:29|
3|spurlimit|srpb|debug|4|billing=4,cpu=4,mem=1G,node=1|17:10:43|17:11:15|17:12:45|
4|root|root|debug|3|billing=3,cpu=3,mem=1000M,node=1|17:10:43|17:10:44|17:11:14|
5|spurlimit|srpb|gpu|2|billing=2,cpu=2,gres/gpu=3,mem=512M,node=1|17:10:43|17:11:29|17:13:59|
6|root|srpa|debug|8|billing=8,cpu=8,mem=2G,node=2|17:10:43|17:10:44|17:11:29|
251|spurtest|srpb|gpu|2|billing=2,cpu=2,gres/gpu=2,mem=512M,node=1|17:11:58|17:11:59|17:15:59|
317|root|srpa|debug|1|billing=1,cpu=1,mem=256M,node=1|17:19:24|17:19:24|17:21:04|srp20-resv2
318|spurtest|srpb|debug|2|billing=2,cpu=2,mem=512M,node=1|17:19:24|17:21:04|17:23:14|srp20-resv2`;

export const SRP20_JOBS: Plain<JobInfo>[] = SACCT.split("\n").map((line) => {
  const [id, user, account, partition, cpus, tres, eligible, start, end, reservation] = line.split("|");
  return makeJob({
    jobId: Number(id), user, account, partition, numCpus: Number(cpus), tresAlloc: tres, reservation: reservation ?? "",
    eligibleTime: on4(eligible ?? ""), startTime: on4(start ?? ""), endTime: on4(end ?? ""), submitTime: on4(eligible ?? ""),
  });
});

const resv = (name: string, start: string, end: string, nodes: string): Plain<ReservationInfo> => ({
  name, startTime: on4(start), endTime: on4(end), nodes, nodeCount: 1, coreCount: 2, users: ["root", "spurtest"], accounts: [],
  flags: ["IGNORE_JOBS", "SPEC_NODES"], partition: "debug", state: "INACTIVE",
});

export const SRP20_RESVS = [resv("srp20-resv", "17:14:54", "17:26:54", "n1"), resv("srp20-resv2", "17:19:21", "17:29:21", "n2")];

/** The account tree: root above srpa and srpb, with the oracle's association ids. */
export const SRP20_TREE = [
  { id: 1, account: "root", user: "", parent: "" }, { id: 2, account: "root", user: "root", parent: "" },
  { id: 3, account: "srpa", user: "", parent: "root" }, { id: 8, account: "srpa", user: "root", parent: "" },
  { id: 5, account: "srpa", user: "spurtest", parent: "" }, { id: 4, account: "srpb", user: "", parent: "root" },
  { id: 7, account: "srpb", user: "spurlimit", parent: "" }, { id: 6, account: "srpb", user: "spurtest", parent: "" },
];

/** The 17:00-18:00 window, and a `now` after it. */
export const SRP20_WINDOW = { start: on4("17:00:00"), end: on4("18:00:00") };
export const SRP20_NOW = on4("18:05:00");
