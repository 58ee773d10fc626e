/**
 * `spur CMD --help` prints that subcommand's usage lines (it used to start a cluster for `spur up --help`).
 */
import { describe, expect, it } from "vitest";
import { usageOf } from "../../../src/roles/spur.ts";

describe("spur subcommand usage", () => {
  it("gives up's lines, continuation lines and its --slurm-conf form", () => {
    const u = usageOf("up")!;
    expect(u.startsWith("Usage: spur up [options]\n")).toBe(true);
    expect(u).toContain("--controllers 3");
    expect(u).toContain("--slurm-conf DIR|FILE");
    expect(u).not.toContain("down [--state-dir DIR]");
  });
  it("gives one line for down and none for roles or unknown words", () => {
    expect(usageOf("down")).toBe("Usage: spur down [options]\n  down [--state-dir DIR]                      stop it\n");
    expect(usageOf("spurctld")).toBeUndefined();
    expect(usageOf("nosuch")).toBeUndefined();
  });
});
