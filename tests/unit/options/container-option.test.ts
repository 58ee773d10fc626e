import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { BUNDLE_KEY } from "../../../src/compat/container-request.ts";

function spec(argv: string[]) {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ctx = { cmd: "sbatch" as const, argv, env: {}, invoker: { cwd: "/home/a", hostname: "h" }, now: 0 };
  const r = sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.spec;
}

describe("--container (Slurm 22.05, oracle: differential tester)", () => {
  it("records the bundle as given and runs it by its absolute path", () => {
    const s = spec(["--container=b"]);
    expect([s.container, s.env[BUNDLE_KEY]]).toEqual(["b", "/home/a/b"]);
  });

  it("accepts an empty one: recorded empty, no container to run", () => {
    const s = spec(["--container=/x", "--container="]);
    expect([s.container, s.env[BUNDLE_KEY]]).toEqual(["", undefined]);
  });
});
