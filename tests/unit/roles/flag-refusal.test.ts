import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const MAIN = new URL("../../../src/main.ts", import.meta.url).pathname;

// The real entry point, as an operator runs it: a mistyped flag must stop the command
// (exit 1, getopt's words, a --help hint), never start a daemon with defaults.
const run = (...argv: string[]) => {
  const r = spawnSync(process.execPath, [MAIN, ...argv], { encoding: "utf8", env: { ...process.env, SPUR_CONF: "/nonexistent/spur.conf" }, timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe("roles refuse unknown flags", () => {
  it("spurd --cnof x: refused before reading any configuration", () => {
    expect(run("spurd", "--cnof", "x")).toEqual({ code: 1, stdout: "", stderr: `spurd: unrecognized option '--cnof'\nTry "spurd --help" for more information\n` });
  });
  it("spurctld --conf (no value) and spurrestd --allow-plaintext=yes", () => {
    expect(run("spurctld", "--conf").stderr).toBe(`spurctld: option '--conf' requires an argument\nTry "spurctld --help" for more information\n`);
    expect(run("spurrestd", "--allow-plaintext=yes")).toMatchObject({ code: 1, stderr: expect.stringContaining("option '--allow-plaintext' doesn't allow an argument") });
  });
  it("spur up --nodse 2: the hint names the sub-command, whose --help still prints its usage", () => {
    expect(run("up", "--nodse", "2")).toEqual({ code: 1, stdout: "", stderr: `spur: unrecognized option '--nodse'\nTry "spur up --help" for more information\n` });
    const help = run("up", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: spur up \[options\]\n.*\n\nOptions:\n  -d, --detach /);
  });
  it("the daemons answer --help with their flags", () => {
    for (const [role, line] of [["spurd", "-N, --node NAME"], ["spurctld", "--state-dir DIR"], ["spurrestd", "--rate-limit"]] as const) {
      const r = run(role, "--help");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(line);
    }
  });
});
