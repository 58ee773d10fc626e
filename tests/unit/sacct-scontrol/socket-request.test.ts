/**
 * The socket/core/thread request a job was submitted with, as 22.05 shows it (oracle:
 * `sbatch --sockets-per-node=1 --cores-per-socket=2 --threads-per-core=1` gives
 * Socks/Node=1 ReqB:S:C:T=0:0:2:1 and squeue %z 1:2:1; nothing asked gives * and 0:0:*:*).
 * Found by the differential tester (tests/differential).
 */
import { describe, expect, it } from "vitest";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { LETTER_FIELDS } from "../../../src/compat/format/squeue-fields.ts";
import { makeJob } from "./helpers.ts";

const squeue = (job: ReturnType<typeof makeJob>, letters: string): string =>
  [...letters].map((l) => LETTER_FIELDS.find((f) => f.letter === l)?.get({ job, now: 0, cluster: "c" }, 0)).join("|");

describe("socket/core/thread request", () => {
  it("shows what was asked for, * where nothing was", () => {
    const asked = makeJob({ jobId: 1, reqSocketsPerNode: 1, reqCoresPerSocket: 2, reqThreadsPerCore: 1 });
    const text = formatJobRecord(asked, { now: 0, oneLiner: true, detail: false });
    expect(text).toContain(" ReqB:S:C:T=0:0:2:1 ");
    expect(text).toContain(" Socks/Node=1 ");
    expect(squeue(asked, "zHIJ")).toBe("1:2:1|1|2|1");
    const threads = makeJob({ jobId: 2, reqThreadsPerCore: 2 });
    expect(formatJobRecord(threads, { now: 0, oneLiner: true, detail: false })).toContain(" ReqB:S:C:T=0:0:*:2 ");
    expect(squeue(threads, "zHIJ")).toBe("*:*:2|*|*|2");
    const none = makeJob({ jobId: 3 });
    expect(formatJobRecord(none, { now: 0, oneLiner: true, detail: false })).toContain(" ReqB:S:C:T=0:0:*:* ");
    expect(squeue(none, "zHIJ")).toBe("*:*:*|*|*|*");
  });
});
