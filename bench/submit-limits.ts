/**
 * What a submission costs when a submit-count limit is set (issue 16): N held jobs of one user
 * queued under AccountingStorageEnforce=limits with the user's MaxSubmitJobs set (and, for the
 * anchor within the run, without it), then SUBMITS more, each applied as a replica applies it.
 * The limit makes every submission count the unfinished jobs of the association's tree.
 * Prints submit_apply_ms per case as JSON lines.
 * Run: bun bench/submit-limits.ts   (N jobs queued first, default 10000; SUBMITS, default 100)
 */
import { loadavg } from "node:os";
import { CONF, cluster, spec, submit } from "../tests/unit/sched/builders.ts";
import { acct } from "../tests/unit/acct/helpers.ts";

const N = Number(process.env.N ?? 10_000);
const SUBMITS = Number(process.env.SUBMITS ?? 100);
const ALICE = { uid: 1000, gid: 1000, user: "alice", group: "alice" };
for (const limited of [false, true]) {
  const c = cluster(`${CONF}AccountingStorageEnforce=associations,limits,qos\n`);
  c.run(acct({ action: "add", entity: "account", names: ["phys"] }));
  c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "phys" } }));
  if (limited) c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { maxsubmitjobs: String(N * 10) } }));
  for (let i = 0; i < N; i++) {
    const r = c.run(submit(spec({ hold: true }), 10, ALICE));
    if (r.error !== "") throw new Error(r.error);
    c.log.length = 0;
  }
  const t0 = performance.now();
  for (let i = 0; i < SUBMITS; i++) c.run(submit(spec({ hold: true }), 10, ALICE));
  const ms = (performance.now() - t0) / SUBMITS;
  console.log(JSON.stringify({ metric: "submit_apply_ms", value: Math.round(ms * 1000) / 1000, unit: "ms", limit: limited ? "MaxSubmitJobs" : "none", queued: N, submits: SUBMITS, load1: loadavg()[0] }));
}
