/**
 * Options given with an empty value are kept apart from options left out, as Slurm 22.05 keeps
 * "" apart from NULL (oracle, `sbatch --hold --OPT= --wrap=true` in /tmp, 2026-12-05; soak seeds
 * 7198, 7240, 8004, 8038, 8063): the record shows them empty, the file options name WorkDir/.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { cluster, submit } from "../sched/builders.ts";
import { noteGiven } from "../../../src/compat/given-empty.ts";
import { LETTER_FIELDS } from "../../../src/compat/format/squeue-fields.ts";
import type { JobRow } from "../../../src/compat/format/job-values.ts";

function submitted(argv: string[]) {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const r = sbatchRequest({ cmd: "sbatch", argv, env: {}, invoker: { cwd: "/tmp", hostname: "login1" }, now: 0 }, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  if (!r.ok) throw new Error(r.error.message);
  const c = cluster();
  c.run(submit({ ...r.value.spec, hold: true }));
  const info = [...c.state.jobs.values()][0]?.info;
  if (info === undefined) throw new Error("not submitted");
  return info;
}

const record = (argv: string[]): string => formatJobRecord(submitted(argv), { now: 100, oneLiner: true, detail: false });

const field = (text: string, name: string): string | undefined => text.split(" ").find((w) => w.startsWith(`${name}=`));

describe("an option given empty", () => {
  it.each([
    ["--constraint=", "Features", "Features="],
    ["--comment=", "Comment", "Comment="],
    ["--licenses=", "Licenses", "Licenses="],
    ["--nodelist=", "ReqNodeList", "ReqNodeList="],
    ["--exclude=", "ExcNodeList", "ExcNodeList="],
    ["--input=", "StdIn", "StdIn=/tmp/"],
    ["--error=", "StdErr", "StdErr=/tmp/"],
    ["--output=", "StdErr", "StdErr=/tmp/"], // the error file follows the output pattern
    ["--output=", "StdOut", "StdOut=/tmp/"],
  ])("%s shows %s as 22.05 does", (option, name, shown) => {
    expect(field(record([option]), name)).toBe(shown);
  });

  it("left out, or given a value after the empty one, shows as before", () => {
    const plain = record([]);
    expect([field(plain, "Features"), field(plain, "Licenses"), field(plain, "StdIn"), field(plain, "Comment")]).toEqual(["Features=(null)", "Licenses=(null)", "StdIn=/dev/null", undefined]);
    expect(field(record(["--comment=", "--comment=x"]), "Comment")).toBe("Comment=x");
    expect(field(record(["--output=", "--output=x.out"]), "StdOut")).toBe("StdOut=/tmp/x.out");
  });

  it("--wckey= is squeue's WCKEY empty, unset is (null) (oracle, squeue -o %all and %w; differential seeds 9770, 9790)", () => {
    const wckey = LETTER_FIELDS.find((f) => f.key === "WCKey");
    const shown = (argv: string[]) => wckey?.get({ job: submitted(argv) } as unknown as JobRow, 0);
    expect([shown(["--wckey="]), shown([]), shown(["--wckey=abc"])]).toEqual(["", "(null)", "abc"]);
  });

  it("keeps the last occurrence's answer per option", () => {
    expect(noteGiven(undefined, "comment", true)).toBe("comment");
    expect(noteGiven("comment,output", "comment", false)).toBe("output");
    expect(noteGiven("output", "output", false)).toBeUndefined();
  });
});
