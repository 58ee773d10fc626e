import { describe, expect, it } from "vitest";
import { loadCommands, loadScripts, onlyMine, parseCommands } from "../../real-scripts/corpus.ts";
import { commandText } from "../../real-scripts/run-case.ts";

describe("real-scripts corpus", () => {
  it("parses command lines: tags, the command, its source; $J/$NAME make it need a held job", () => {
    const [a, b] = parseCommands("# comment\n\n@ended @mine sacct -j $J -X ## toil\nsinfo -h -o %P ## docs\n");
    expect(a).toMatchObject({ name: "c3", cmd: "sacct -j $J -X", source: "toil", needsJob: true, ended: true, mine: true, racy: false });
    expect(b).toMatchObject({ cmd: "sinfo -h -o %P", needsJob: false, ended: false });
    expect(commandText(a!, "17", "rs-x")).toBe("sacct -j 17 -X");
  });

  it("keeps the lines of a whole-queue listing that name the case's job, and headers", () => {
    expect(onlyMine("JOBID ST\n<J> PD\n123 R\n<J>_1 PD\n")).toBe("JOBID ST\n<J> PD\n<J>_1 PD");
  });

  it("has 60+ scripts that each name their source, and 60+ command lines with sources", () => {
    const scripts = loadScripts();
    const commands = loadCommands();
    expect(scripts.length).toBeGreaterThanOrEqual(60);
    expect(scripts.filter((s) => s.source === "(unknown)").map((s) => s.name)).toEqual([]);
    expect(commands.length).toBeGreaterThanOrEqual(60);
    expect(commands.filter((c) => c.source === "").map((c) => c.cmd)).toEqual([]);
  });
});
