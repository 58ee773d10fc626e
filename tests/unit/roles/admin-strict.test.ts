/**
 * `spur` sub-commands refuse what they do not declare (roles/admin/strict.ts): citty alone
 * would let `--nodse 2`, `--stateDir`, `--no-tls` or a value flag without its value pass.
 * The refusal is getopt's words with the command's own --help hint, exit 1, and happens
 * before anything runs (parseCommandLine runs nothing).
 */
import type { ArgsDef } from "citty";
import { describe, expect, it } from "vitest";
import { flagSpecOf, strictCheck } from "../../../src/roles/admin/strict.ts";
import { leaves, line } from "./admin-line.ts";

const refused = (text: string) => ({ kind: "refused", text, exitCode: 1 });
const hint = (path: string) => `Try "spur ${path} --help" for more information\n`;

describe("the getopt spec of a command's citty args", () => {
  it("gives --name and each alias per flag, positionals as operands, rest as any number", () => {
    const args: ArgsDef = {
      detach: { type: "boolean", alias: "d" },
      output: { type: "string", alias: ["o", "out"] },
      host: { type: "positional" },
    };
    expect(flagSpecOf(args)).toEqual({ values: [["--output", "-o", "--out"]], booleans: [["--detach", "-d"]], operands: 1 });
    expect(flagSpecOf(args, { name: "PATH" }).operands).toBe(Number.POSITIVE_INFINITY);
    expect(flagSpecOf(args, { name: "CMD", afterDash: true }).operands).toBe(1);
  });

  it("leaves what follows `--` alone only for a command whose rest comes after it", () => {
    const args = { host: { type: "positional" } } as const;
    expect(strictCheck(args, ["n1", "--", "ls", "--bogus"], { name: "CMD", afterDash: true })).toBeUndefined();
    expect(strictCheck(args, ["n1", "--", "ls"])).toMatchObject({ code: "ExtraOperand" });
    expect(strictCheck(args, ["n1", "n2", "--", "ls"], { name: "CMD", afterDash: true })).toMatchObject({ code: "ExtraOperand" });
  });
});

describe("every spur sub-command refuses an unknown flag", async () => {
  const all = await leaves();
  it("has every sub-command of the issue", () => {
    expect(all.map((p) => p.join(" ")).sort()).toEqual([
      "authd", "cdi generate", "check", "controller add", "controller remove", "demo", "down", "exec", "import-slurm", "init", "install-links",
      "net apply", "net init", "net keygen", "sim", "systemd-units", "tls-cert", "up", "version",
    ]);
  });
  for (const path of all) {
    it(`spur ${path.join(" ")} --bogus-flag / -Z`, async () => {
      expect(await line(...path, "--bogus-flag")).toEqual(refused(`spur: unrecognized option '--bogus-flag'\n${hint(path.join(" "))}`));
      expect(await line(...path, "-Z")).toEqual(refused(`spur: invalid option -- 'Z'\n${hint(path.join(" "))}`));
    });
  }
});

describe("what citty would let pass", () => {
  it("a mistyped flag, a camelCase spelling, a --no- form", async () => {
    expect(await line("up", "--nodse", "2")).toEqual(refused(`spur: unrecognized option '--nodse'\n${hint("up")}`));
    expect(await line("up", "--stateDir", "/x")).toEqual(refused(`spur: unrecognized option '--stateDir'\n${hint("up")}`));
    expect(await line("up", "--no-tls")).toEqual(refused(`spur: unrecognized option '--no-tls'\n${hint("up")}`));
  });
  it("a value flag without its value, a boolean flag given one", async () => {
    expect(await line("down", "--state-dir")).toEqual(refused(`spur: option '--state-dir' requires an argument\n${hint("down")}`));
    expect(await line("up", "--detach=yes")).toEqual(refused(`spur: option '--detach' doesn't allow an argument\n${hint("up")}`));
  });
  it("an operand too many", async () => {
    expect(await line("install-links", "a", "b")).toEqual(refused(`spur: extra operand 'b'\n${hint("install-links")}`));
    expect(await line("controller", "remove", "3", "4")).toEqual(refused(`spur: extra operand '4'\n${hint("controller remove")}`));
    expect(await line("up", "now")).toEqual(refused(`spur: extra operand 'now'\n${hint("up")}`));
  });
  it("a flag before the sub-command, an unknown sub-command", async () => {
    expect(await line("--bogus", "up")).toEqual(refused(`spur: unrecognized option '--bogus'\nTry "spur --help" for more information\n`));
    expect(await line("net", "--out", "x", "init")).toEqual(refused(`spur: unrecognized option '--out'\n${hint("net")}`));
    expect(await line("frob")).toEqual(refused(`spur: error: unknown command "frob"\nTry "spur --help" for more information\n`));
    expect(await line("net", "frob")).toEqual(refused(`spur: error: unknown command "net frob"\n${hint("net")}`));
  });
});

describe("--help", () => {
  it("answers for a command, a group and the root, before any flag is checked", async () => {
    expect(await line("up", "--nodse", "2", "--help")).toMatchObject({ kind: "help", path: ["spur", "up"], exitCode: 0 });
    expect(await line("net", "init", "-h")).toMatchObject({ kind: "help", path: ["spur", "net", "init"], exitCode: 0 });
    expect(await line("net", "--help")).toMatchObject({ kind: "help", path: ["spur", "net"], exitCode: 0 });
    expect(await line("help", "controller", "add")).toMatchObject({ kind: "help", path: ["spur", "controller", "add"], exitCode: 0 });
    expect(await line()).toMatchObject({ kind: "help", path: ["spur"], exitCode: 1 });
    expect(await line("cdi")).toMatchObject({ kind: "help", path: ["spur", "cdi"], exitCode: 1 });
  });
  it("after `--` belongs to the command exec runs", async () => {
    expect(await line("exec", "n1", "--", "sinfo", "--help")).toMatchObject({ kind: "run", path: ["spur", "exec"] });
  });
});
