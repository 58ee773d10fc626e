/**
 * @module roles/admin/sim
 * `spur sim`: replay a workload (an SWF trace or a seeded synthetic one) through the real
 * scheduler on a virtual clock, FCFS against EASY backfill (roles/sim-cli.ts).
 */
import type { ParsedArgs } from "citty";
import type { SimFlags } from "../sim-cli.ts";
import { defineAdminCommand, writeOps } from "./command.ts";

export const simArgs = {
  trace: { type: "string", valueHint: "FILE.swf[.gz]", description: "Standard Workload Format trace (.gz accepted)" },
  limit: { type: "string", valueHint: "N", description: "replay only the first N jobs of the trace" },
  synthetic: { type: "string", valueHint: "N", description: "generate N jobs instead (seeded; default 2000)" },
  load: { type: "string", valueHint: "L", description: "offered load of the synthetic workload (default 0.7)" },
  nodes: { type: "string", valueHint: "N", description: "machine size in nodes (default: the trace's MaxProcs, else 128)" },
  "cpus-per-node": { type: "string", valueHint: "C", description: "processors per node (default 1: one SWF processor per node)" },
  scheduler: { type: "string", valueHint: "fcfs|backfill|both", default: "both", description: "which scheduler(s) to replay" },
  seed: { type: "string", valueHint: "S", description: "seed of the synthetic workload (default 1)" },
  json: { type: "boolean", description: "one JSON object per scheduler instead of a table" },
} as const;

export const simFlagsOf = (a: ParsedArgs<typeof simArgs>): SimFlags => ({
  trace: a.trace, limit: a.limit, synthetic: a.synthetic, load: a.load, nodes: a.nodes, cpusPerNode: a["cpus-per-node"], scheduler: a.scheduler, seed: a.seed, json: a.json,
});

export default defineAdminCommand({
  meta: { name: "spur sim", description: "replay a workload through the scheduler (FCFS vs backfill)" },
  args: simArgs,
  run: async ({ args }) => writeOps((await import("../sim-cli.ts")).simMain(simFlagsOf(args))),
});
